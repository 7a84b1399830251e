import { matchTotp, newTotpSecret, totpUri } from '../../lib/infra/crypto/totp'
import { normalizeRecoveryCode, newRecoveryCodes, recoveryCodeHash } from '../../lib/infra/crypto/recovery-codes'
import { qrSvg } from '../../lib/infra/pages/qr-svg'
import { fromBase32, totpCode } from '../support/totp'

describe("the specs' own TOTP (spec/support/totp.ts)", () => {
  // RFC 6238 Appendix B: the seeds are the ASCII digits repeated to the hash's length.
  const seeds = {
    sha1: Buffer.from('12345678901234567890'),
    sha256: Buffer.from('12345678901234567890123456789012'),
    sha512: Buffer.from('1234567890123456789012345678901234567890123456789012345678901234'),
  }
  const vectors: Array<[number, string, string, string]> = [
    [59, '94287082', '46119246', '90693936'],
    [1111111109, '07081804', '68084774', '25091201'],
    [1111111111, '14050471', '67062674', '99943326'],
    [1234567890, '89005924', '91819424', '93441116'],
    [2000000000, '69279037', '90698825', '38618901'],
    [20000000000, '65353130', '77737706', '47863826'],
  ]
  it.each(vectors)('gives RFC 6238 Appendix B at %i s', (seconds, sha1, sha256, sha512) => {
    const at = seconds * 1000
    expect(totpCode(seeds.sha1, at, { digits: 8 })).toBe(sha1)
    expect(totpCode(seeds.sha256, at, { digits: 8, algorithm: 'sha256' })).toBe(sha256)
    expect(totpCode(seeds.sha512, at, { digits: 8, algorithm: 'sha512' })).toBe(sha512)
  })
})

describe('TOTP as the package checks it (lib/infra/crypto/totp.ts)', () => {
  const secret = newTotpSecret()
  const key = fromBase32(secret)
  const now = 1_800_000_015_000
  const step = Math.floor(now / 30_000)

  it('makes a 160-bit base32 secret, new each time', () => {
    expect(secret).toMatch(/^[A-Z2-7]{32}$/)
    expect(key).toHaveLength(20)
    expect(newTotpSecret()).not.toBe(secret)
  })

  it('matches the code of the step before, at and after now, and answers that step', () => {
    expect(matchTotp(secret, totpCode(key, now), now)).toBe(step)
    expect(matchTotp(secret, totpCode(key, now - 30_000), now)).toBe(step - 1)
    expect(matchTotp(secret, totpCode(key, now + 30_000), now)).toBe(step + 1)
  })

  it('refuses a code two steps away, and another secret’s code', () => {
    const codes = [totpCode(key, now - 60_000), totpCode(key, now + 60_000)]
    // A code two steps away can equal a near one by chance (1 in a million): skip that case.
    for (const code of codes)
      if (![now - 30_000, now, now + 30_000].some((at) => totpCode(key, at) === code))
        expect(matchTotp(secret, code, now)).toBeNull()
    expect(matchTotp(newTotpSecret(), totpCode(key, now), now)).toBeNull()
  })

  it('answers null for input that is not six ASCII digits, and never throws', () => {
    const right = totpCode(key, now)
    for (const code of [
      undefined,
      null,
      123456,
      '',
      'abcdef',
      `${right}0`,
      right.slice(1),
      '１２３４５６',
      '٠١٢٣٤٥',
      '9'.repeat(10_000),
      `${right.slice(0, 3)} ${right.slice(3)}`,
    ])
      expect(matchTotp(secret, code, now)).toBeNull()
    expect(matchTotp('not base32 at all!', right, now)).toBeNull()
  })

  it('writes the otpauth URI authenticator apps read', () => {
    const uri = new URL(totpUri({ secret, issuer: 'Example', account: 'ada@example.com' }))
    expect(uri.protocol).toBe('otpauth:')
    expect(uri.host).toBe('totp')
    expect(decodeURIComponent(uri.pathname)).toBe('/Example:ada@example.com')
    expect(Object.fromEntries(uri.searchParams)).toEqual({
      issuer: 'Example',
      secret,
      algorithm: 'SHA1',
      digits: '6',
      period: '30',
    })
  })
})

describe('recovery codes (lib/infra/crypto/recovery-codes.ts)', () => {
  it('makes codes of 60 bits as xxxx-xxxx-xxxx, all different', () => {
    const codes = newRecoveryCodes(10)
    expect(codes).toHaveLength(10)
    expect(new Set(codes).size).toBe(10)
    for (const code of codes)
      expect(code).toMatch(/^[0-9a-hjkmnp-tv-z]{4}-[0-9a-hjkmnp-tv-z]{4}-[0-9a-hjkmnp-tv-z]{4}$/)
  })

  it('reads a code however it is typed, and nothing else', () => {
    const [code] = newRecoveryCodes(1) as [string]
    const plain = code.replace(/-/g, '')
    expect(normalizeRecoveryCode(code)).toBe(plain)
    expect(normalizeRecoveryCode(` ${code.toUpperCase()} `)).toBe(plain)
    expect(normalizeRecoveryCode(plain.replace(/0/g, 'O').replace(/1/g, 'l'))).toBe(plain)
    for (const input of [
      undefined,
      42,
      '',
      plain.slice(1),
      `${plain}0`,
      'uuuu-uuuu-uuuu',
      '-'.repeat(65),
      `${code}\u0000`,
    ])
      expect(normalizeRecoveryCode(input)).toBeNull()
  })

  it('hashes under a key: another key, another hash', () => {
    const [code] = newRecoveryCodes(1) as [string]
    const normalized = normalizeRecoveryCode(code)!
    const one = recoveryCodeHash(Buffer.alloc(32, 1), normalized)
    expect(recoveryCodeHash(Buffer.alloc(32, 1), normalized)).toBe(one)
    expect(recoveryCodeHash(Buffer.alloc(32, 2), normalized)).not.toBe(one)
    expect(one).not.toContain(normalized)
  })
})

describe('the QR code of the setup page (lib/infra/pages/qr-svg.ts)', () => {
  it('draws an SVG with no script, the same for the same URI', async () => {
    const uri = totpUri({ secret: newTotpSecret(), issuer: 'Example', account: 'ada@example.com' })
    const svg = await qrSvg(uri)
    expect(svg).toMatch(/^<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/)
    expect(svg).toContain('<path')
    expect(svg).not.toMatch(/<script|on\w+=/i)
    expect(await qrSvg(uri)).toBe(svg)
  })
})
