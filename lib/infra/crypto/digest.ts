import { createHash } from 'node:crypto'

/**
 * SHA-1 of the text's UTF-8 bytes, 40 hex digits in upper case (as the Pwned Passwords range API
 * writes its suffixes). Not for anything that must resist collisions: only to name a password in
 * that API's k-anonymity protocol, which is built on SHA-1 and of which only 5 digits leave.
 */
export function sha1Hex(text: string): string {
  return createHash('sha1').update(text, 'utf8').digest('hex').toUpperCase()
}
