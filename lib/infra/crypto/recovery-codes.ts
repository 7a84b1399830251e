import { createHmac } from 'node:crypto'
import { randomBuffer } from './random'

/**
 * Recovery codes: each 60 random bits in Crockford's base32 (no I, L, O, U: nothing to misread),
 * shown as `xxxx-xxxx-xxxx` in lower case. Kept as keyed hashes (HMAC-SHA-256 under the
 * `mfa-recovery` key): 60 bits need no slow hash, and a stolen table without the key tells nothing.
 */
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'
const LENGTH = 12

/** `count` new codes, each of 60 bits. */
export function newRecoveryCodes(count: number): string[] {
  return Array.from({ length: count }, () => {
    const bytes = randomBuffer(8)
    // 60 bits of the 64, five at a time.
    let bits = bytes.readBigUInt64BE(0) >> 4n
    let text = ''
    for (let i = 0; i < LENGTH; i++) {
      text = ALPHABET[Number(bits & 31n)]! + text
      bits >>= 5n
    }
    return `${text.slice(0, 4)}-${text.slice(4, 8)}-${text.slice(8)}`
  })
}

/**
 * A typed code as it is hashed: lower case, spaces and dashes gone, the letters people confuse
 * read as Crockford's digits (o → 0, i and l → 1); null unless exactly 12 of the alphabet's
 * characters remain (anything longer than 64 characters is not looked at).
 */
export function normalizeRecoveryCode(input: unknown): string | null {
  if (typeof input !== 'string' || input.length > 64) return null
  let text = ''
  for (const char of input.toLowerCase()) {
    if (char === ' ' || char === '-') continue
    const read = char === 'o' ? '0' : char === 'i' || char === 'l' ? '1' : char
    if (!ALPHABET.includes(read)) return null
    text += read
  }
  return text.length === LENGTH ? text : null
}

/** The keyed hash a normalized code is kept and looked up as. */
export function recoveryCodeHash(key: Buffer, normalized: string): string {
  return createHmac('sha256', key).update(normalized).digest('base64url')
}
