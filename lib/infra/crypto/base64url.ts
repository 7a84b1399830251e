/**
 * The one decoder of base64url text that comes from outside (cookies, tokens). Node's own decoder
 * is lenient: it ignores the spare low bits of the last character, a lone character past the last
 * group, padding and whitespace, so one token has many spellings. Every spelling but the canonical
 * one (RFC 4648 §5 without padding, what `toString('base64url')` writes) is refused here, so that a
 * value can be told by its exact text: one session, one cookie string, one reply-cache key.
 */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
const CHARACTERS = /^[\w-]*$/
/**
 * By the text's length mod 4: the bits of the last character that spell no byte and must be zero
 * (2 characters carry 12 bits for 1 byte, 3 carry 18 for 2). A length of 4n + 1 spells nothing.
 */
const SPARE_BITS = [0, -1, 0b1111, 0b11] as const

/** True when `text` is base64url exactly as it encodes its own bytes. Linear in the length. */
export function isCanonicalBase64url(text: string): boolean {
  const spare = SPARE_BITS[text.length % 4]!
  if (spare === -1 || !CHARACTERS.test(text)) return false
  return (ALPHABET.indexOf(text.charAt(text.length - 1)) & spare) === 0
}

/** The bytes canonical base64url text spells, or null for any other text (never throws). */
export function decodeBase64url(text: string): Buffer | null {
  return isCanonicalBase64url(text) ? Buffer.from(text, 'base64url') : null
}
