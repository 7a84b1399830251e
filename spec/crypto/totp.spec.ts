import { matchTotp, newTotpSecret, totpUri } from '../../lib/infra/crypto/totp'
import { appCode, base32Decode, hotp, totp, totpStep, type TotpAlgorithm } from '../support/totp'

/**
 * Authenticator-app codes: the specs' own RFC 6238 reproduces the RFC's Appendix B, and lib's
 * matchTotp accepts exactly what an app shows within one step of now, answering the step it matched,
 * and refuses anything else (two steps away, hostile input) with null, never an exception.
 */

// RFC 6238 Appendix B: the seeds are ASCII "12345678901234567890" repeated to the hash's length.
const SEEDS: Record<TotpAlgorithm, Buffer> = {
  sha1: Buffer.from('12345678901234567890'),
  sha256: Buffer.from('12345678901234567890123456789012'),
  sha512: Buffer.from('1234567890123456789012345678901234567890123456789012345678901234'),
}
const APPENDIX_B: ReadonlyArray<readonly [number, string, TotpAlgorithm]> = [
  [59, '94287082', 'sha1'],
  [59, '46119246', 'sha256'],
  [59, '90693936', 'sha512'],
  [1111111109, '07081804', 'sha1'],
  [1111111109, '68084774', 'sha256'],
  [1111111109, '25091201', 'sha512'],
  [1111111111, '14050471', 'sha1'],
  [1111111111, '67062674', 'sha256'],
  [1111111111, '99943326', 'sha512'],
  [1234567890, '89005924', 'sha1'],
  [1234567890, '91819424', 'sha256'],
  [1234567890, '93441116', 'sha512'],
  [2000000000, '69279037', 'sha1'],
  [2000000000, '90698825', 'sha256'],
  [2000000000, '38618901', 'sha512'],
  [20000000000, '65353130', 'sha1'],
  [20000000000, '77737706', 'sha256'],
  [20000000000, '47863826', 'sha512'],
]

describe("the specs' RFC 6238", () => {
  it.each(APPENDIX_B)('gives Appendix B at %i s (%s, %s)', (seconds, code, algorithm) => {
    expect(totp(SEEDS[algorithm], seconds, { digits: 8, algorithm })).toBe(code)
  })

  it("gives RFC 4226 Appendix D's HOTP values (6 digits, SHA-1)", () => {
    const codes = Array.from({ length: 10 }, (_, counter) => hotp(SEEDS.sha1, counter))
    expect(codes).toEqual([
      '755224',
      '287082',
      '359152',
      '969429',
      '338314',
      '254676',
      '287922',
      '162583',
      '399871',
      '520489',
    ])
  })
})

describe('newTotpSecret and totpUri', () => {
  it('makes 160-bit base32 secrets, a new one each time', () => {
    const secrets = new Set(Array.from({ length: 50 }, () => newTotpSecret()))
    expect(secrets.size).toBe(50)
    for (const secret of secrets) {
      expect(secret).toMatch(/^[A-Z2-7]{32}$/)
      expect(base32Decode(secret)).toHaveLength(20)
    }
  })

  it('writes the Key URI an app reads: issuer in label and parameter, SHA1, 6 digits, 30 s', () => {
    const secret = newTotpSecret()
    const uri = new URL(totpUri({ secret, issuer: 'Acme & Co', account: 'ada@example.com' }))
    expect(uri.protocol).toBe('otpauth:')
    expect(uri.host).toBe('totp')
    expect(decodeURIComponent(uri.pathname)).toBe('/Acme & Co:ada@example.com')
    expect(Object.fromEntries(uri.searchParams)).toEqual({
      secret,
      issuer: 'Acme & Co',
      algorithm: 'SHA1',
      digits: '6',
      period: '30',
    })
  })

  it('writes a lone surrogate in a name as U+FFFD instead of throwing', () => {
    const uri = totpUri({ secret: newTotpSecret(), issuer: 'Acme', account: 'ada\ud800' })
    expect(decodeURIComponent(new URL(uri).pathname)).toBe('/Acme:ada\ufffd')
  })

  it('refuses a secret that is not base32 (a programming error)', () => {
    expect(() => totpUri({ secret: 'not a secret', issuer: 'Acme', account: 'ada' })).toThrow(TypeError)
  })
})

describe('matchTotp', () => {
  const secret = newTotpSecret()
  const now = 1_700_000_013 // 13 s into a step
  const step = totpStep(now)
  const codeAt = (offset: number) => appCode(secret, (step + offset) * 30)

  it("accepts the app's code for the previous, current and next step, answering that step", () => {
    expect(matchTotp(secret, codeAt(0), now * 1000)).toBe(step)
    expect(matchTotp(secret, codeAt(-1), now * 1000)).toBe(step - 1)
    expect(matchTotp(secret, codeAt(1), now * 1000)).toBe(step + 1)
  })

  it('takes the step from the clock at the edges of a step', () => {
    expect(matchTotp(secret, codeAt(0), step * 30 * 1000)).toBe(step)
    expect(matchTotp(secret, codeAt(0), ((step + 1) * 30 - 0.001) * 1000)).toBe(step)
    expect(matchTotp(secret, codeAt(1), (step + 1) * 30 * 1000)).toBe(step + 1)
  })

  it('refuses codes two steps away, and codes of another secret', () => {
    for (const offset of [-2, 2]) {
      const code = codeAt(offset)
      // The rare code that happens to equal one within the window proves nothing about the window.
      if ([-1, 0, 1].some((near) => codeAt(near) === code)) continue
      expect(matchTotp(secret, code, now * 1000)).toBeNull()
    }
    expect(matchTotp(newTotpSecret(), codeAt(0), now * 1000)).toBeNull()
  })

  it('refuses the right code with any one digit changed', () => {
    const code = codeAt(0)
    const window = new Set([codeAt(-1), code, codeAt(1)])
    for (let at = 0; at < code.length; at++) {
      const changed = code.slice(0, at) + String((Number(code[at]) + 1) % 10) + code.slice(at + 1)
      if (!window.has(changed)) expect(matchTotp(secret, changed, now * 1000)).toBeNull()
    }
  })

  const hostile: ReadonlyArray<readonly [string, unknown]> = [
    ['letters', 'abcdef'],
    ['five digits', '12345'],
    ['seven digits', '1234567'],
    ['10,000 characters', '1'.repeat(10_000)],
    ['Arabic-Indic digits', '١٢٣٤٥٦'],
    ['full-width digits', '１２３４５６'],
    ['spaces around', ' 123456 '],
    ['a space inside', '123 456'],
    ['a sign', '+12345'],
    ['an empty string', ''],
    ['undefined', undefined],
    ['null', null],
    ['a number', 123456],
    ['an array', ['123456']],
    ['an object', { toString: () => '123456' }],
  ]
  it.each(hostile)('answers null for %s, without throwing', (_, code) => {
    expect(matchTotp(secret, code, now * 1000)).toBeNull()
  })

  it('answers null for a malformed secret or clock rather than throwing', () => {
    const code = codeAt(0)
    expect(matchTotp('', code, now * 1000)).toBeNull()
    expect(matchTotp('not base32!', code, now * 1000)).toBeNull()
    expect(matchTotp(secret.toLowerCase(), code, now * 1000)).toBeNull()
    expect(matchTotp(secret, code, Number.NaN)).toBeNull()
    expect(matchTotp(secret, code, -1)).toBeNull()
  })
})
