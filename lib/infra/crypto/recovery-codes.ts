import { createHmac, type KeyObject } from 'node:crypto'
import { randomBuffer } from './random'

/**
 * Recovery codes: the second factor of a user who lost the authenticator app, each good once. A code
 * is 12 characters of Crockford's base32 (60 bits), shown as `xxxx-xxxx-xxxx` in lower case: no
 * I, L, O or U to misread, and 60 bits against guessing when the guesses are limited anyway. Only a
 * keyed hash of each code is stored, so a copy of the table is no list of codes, and cannot be tried
 * offline without the key.
 */

/** Crockford's alphabet, lower case. 32 letters: a byte's low 5 bits pick one without bias. */
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'
const GROUP = 4
const GROUPS = 3
const LENGTH = GROUP * GROUPS
/** What a person types may carry spaces and dashes; anything longer is no code, and is not looked at. */
const MAX_INPUT = 64
/** Crockford's reading of the letters left out: typed from paper, they mean these digits. */
const CONFUSABLES: ReadonlyMap<string, string> = new Map([
  ['i', '1'],
  ['l', '1'],
  ['o', '0'],
])
/** Typed or pasted between the groups: spaces, tabs, hyphen-minus and Unicode's hyphens and dashes. */
const SEPARATORS = new Set([' ', '\t', '-', '\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212'])

/** `n` new codes, `xxxx-xxxx-xxxx`, each from 60 bits of the CSPRNG. */
export function newRecoveryCodes(n = 10): string[] {
  if (!Number.isSafeInteger(n) || n < 1 || n > 100) throw new RangeError(`newRecoveryCodes: ${n} is not 1 to 100`)
  return Array.from({ length: n }, () => {
    const bytes = randomBuffer(LENGTH)
    return format(Array.from(bytes, (byte) => ALPHABET[byte & 31]!).join(''))
  })
}

/**
 * What the user typed as the canonical code (`xxxx-xxxx-xxxx`, as shown), or null when it cannot be
 * one. Forgiven: case, spaces and dashes anywhere, full-width characters (NFKC), and I, L, O read as
 * 1, 1, 0. Anything else (another letter, another script's digit, a wrong length, a non-string) is
 * null, never an exception, and costs no more than reading 64 characters.
 */
export function normalizeRecoveryCode(input: unknown): string | null {
  if (typeof input !== 'string' || input.length > MAX_INPUT) return null
  let code = ''
  for (const char of input.normalize('NFKC').toLowerCase()) {
    if (SEPARATORS.has(char)) continue
    const digit = CONFUSABLES.get(char) ?? char
    if (digit.length !== 1 || !ALPHABET.includes(digit) || code.length === LENGTH) return null
    code += digit
  }
  return code.length === LENGTH ? format(code) : null
}

/**
 * The stored form of a code: HMAC-SHA256 under the app's recovery-code key, base64url. `code` is
 * canonical (from newRecoveryCodes or normalizeRecoveryCode): the hash is of the text as given, so
 * that one code has one hash. Keyed rather than plain: 60 bits hashed with SHA-256 alone could be
 * searched for by whoever reads the store.
 */
export function recoveryCodeHash(key: KeyObject | Buffer, code: string): string {
  return createHmac('sha256', key).update(code, 'utf8').digest('base64url')
}

function format(code: string): string {
  const groups: string[] = []
  for (let at = 0; at < code.length; at += GROUP) groups.push(code.slice(at, at + GROUP))
  return groups.join('-')
}
