/**
 * What accounts keep of a provider's words, as every store can keep it: a subject and an issuer
 * are refused when a store would change them or refuse them, and profile text loses its NULs.
 */
import type { SignInInput } from '../../core/sign-in/complete'

/** The longest subject kept: PostgreSQL's unique index takes about 2,700 bytes for the whole identity. */
const MAX_SUBJECT = 512

/**
 * Whether every store keeps `text` as it is, and finds it again as itself: PostgreSQL refuses a NUL
 * (the sign-in would answer 503) and turns a lone surrogate into U+FFFD (two subjects would be one
 * identity there, and two in memory or Redis).
 */
export function keepable(text: string): boolean {
  return text.length <= MAX_SUBJECT && !text.includes('\u0000') && Buffer.from(text, 'utf8').toString('utf8') === text
}

/** The address the provider verified, when a store can keep it as it is; else none is verified. */
export function verifiedAddress(input: SignInInput): string | undefined {
  const address = input.identity?.verifiedEmail
  return address !== undefined && keepable(address) ? address : undefined
}

/** A profile's text without NUL characters, which PostgreSQL cannot keep; null for none. */
export function withoutNul(text: string | null | undefined): string | null {
  return typeof text === 'string' ? text.replaceAll('\u0000', '') : null
}
