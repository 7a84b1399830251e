import { createHmac, createSecretKey } from 'node:crypto'
import { newRecoveryCodes, normalizeRecoveryCode, recoveryCodeHash } from '../../lib/infra/crypto/recovery-codes'

/**
 * Recovery codes: what the user is shown (`xxxx-xxxx-xxxx`, Crockford base32, 60 bits), what is
 * forgiven when it is typed back (case, spaces, dashes, I/L/O), what is refused (null, never an
 * exception), and the stored hash, which depends on the key.
 */

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz'
const FORMAT = /^[0-9a-hjkmnp-tv-z]{4}-[0-9a-hjkmnp-tv-z]{4}-[0-9a-hjkmnp-tv-z]{4}$/

describe('newRecoveryCodes', () => {
  it('makes ten codes by default, each xxxx-xxxx-xxxx in lower-case Crockford base32', () => {
    const codes = newRecoveryCodes()
    expect(codes).toHaveLength(10)
    for (const code of codes) expect(code).toMatch(FORMAT)
    expect(newRecoveryCodes(3)).toHaveLength(3)
  })

  it('draws every character from all 32 evenly (12 characters: 60 bits a code)', () => {
    const counts = new Map<string, number>()
    for (const code of newRecoveryCodes(100).concat(newRecoveryCodes(100), newRecoveryCodes(100)))
      for (const char of code.replaceAll('-', '')) counts.set(char, (counts.get(char) ?? 0) + 1)
    // 3,600 characters: 112.5 of each expected; a fixed or skewed source falls far outside.
    expect([...counts.keys()].sort().join('')).toBe(CROCKFORD)
    for (const count of counts.values()) expect(count).toBeGreaterThan(60)
    for (const count of counts.values()) expect(count).toBeLessThan(170)
  })

  it('never repeats a code', () => {
    const codes = Array.from({ length: 20 }, () => newRecoveryCodes(50)).flat()
    expect(new Set(codes).size).toBe(codes.length)
  })

  it('refuses a count that is not 1 to 100', () => {
    for (const n of [0, -1, 1.5, 101, Number.NaN]) expect(() => newRecoveryCodes(n)).toThrow(RangeError)
  })
})

describe('normalizeRecoveryCode', () => {
  const code = 'ab12-cd34-ef56'

  it('gives back a code as shown', () => {
    for (const shown of newRecoveryCodes(5)) expect(normalizeRecoveryCode(shown)).toBe(shown)
  })

  it.each([
    ['upper case', 'AB12-CD34-EF56'],
    ['no dashes', 'ab12cd34ef56'],
    ['spaces for dashes', 'ab12 cd34 ef56'],
    ['spaces around', '  ab12-cd34-ef56\t'],
    ['a typographic dash', 'ab12\u2013cd34\u2010ef56'],
    ['full-width characters', 'ＡＢ１２－ＣＤ３４－ＥＦ５６'],
    ['other grouping', 'ab-12-cd-34-ef-56'],
  ])('forgives %s', (_, typed) => {
    expect(normalizeRecoveryCode(typed)).toBe(code)
  })

  it('reads I and L as 1 and O as 0, as Crockford does', () => {
    expect(normalizeRecoveryCode('ILO0-1234-5678')).toBe('1100-1234-5678')
    expect(normalizeRecoveryCode('il00-1234-5678')).toBe('1100-1234-5678')
  })

  it.each<[string, unknown]>([
    ['a U (not in the alphabet)', 'ub12-cd34-ef56'],
    ['punctuation', 'ab12.cd34.ef56'],
    ['one character short', 'ab12-cd34-ef5'],
    ['one character long', 'ab12-cd34-ef567'],
    ['Arabic-Indic digits', '١٢٣٤-١٢٣٤-١٢٣٤'],
    ['a combining mark', 'ab12-cd34-ef5\u03016'],
    ['a dotless i', 'ab12-cd34-ef5\u0131'],
    ['10,000 characters', 'a'.repeat(10_000)],
    ['a code among 60 spaces', `${' '.repeat(60)}ab12cd34ef56`],
    ['a lone surrogate', 'ab12-cd34-ef5\ud800'],
    ['an empty string', ''],
    ['undefined', undefined],
    ['null', null],
    ['a number', 123456789012],
    ['an array', [code]],
  ])('answers null for %s, without throwing', (_, typed) => {
    expect(normalizeRecoveryCode(typed)).toBeNull()
  })
})

describe('recoveryCodeHash', () => {
  const key = Buffer.alloc(32, 7)
  const code = 'ab12-cd34-ef56'

  it('is HMAC-SHA256, base64url, the same for the same key and code', () => {
    expect(recoveryCodeHash(key, code)).toBe(createHmac('sha256', key).update(code).digest('base64url'))
    expect(recoveryCodeHash(key, code)).toBe(recoveryCodeHash(createSecretKey(key), code))
  })

  it('differs with another key, and with another code', () => {
    expect(recoveryCodeHash(Buffer.alloc(32, 8), code)).not.toBe(recoveryCodeHash(key, code))
    expect(recoveryCodeHash(key, 'ab12-cd34-ef57')).not.toBe(recoveryCodeHash(key, code))
  })

  it('hashes what the user typed and what was shown alike once normalised', () => {
    expect(recoveryCodeHash(key, normalizeRecoveryCode(' AB12 CD34 EF56 ')!)).toBe(recoveryCodeHash(key, code))
  })
})
