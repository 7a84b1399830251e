import { emailIdentifier } from '../email/address'
import type { PasswordRuntime } from './runtime'

/** The longest user name, in code points. */
const MAX_USERNAME = 64
/** Letters, digits, `.`, `_` and `-`: one class, no nesting, so it runs in linear time. */
const USERNAME = /^[\p{L}\p{N}._-]+$/u

/**
 * Who signs in, in the one form the store keys it by: an address as `email()` normalises it (with
 * the e-mail provider's `normalizeIdentifier`), or a user name in NFKC, trimmed and in lower case
 * (`Carol` and `carol` are one account). Null for anything else, a non-string included.
 */
export function readIdentifier(runtime: PasswordRuntime, raw: unknown): string | null {
  if (typeof raw !== 'string') return null
  if (runtime.provider.identifier === 'email') return emailIdentifier(raw, runtime.mail?.provider.normalizeIdentifier)
  if (raw.length > 4 * MAX_USERNAME) return null
  const name = raw.normalize('NFKC').trim().toLowerCase()
  const length = [...name].length
  return length >= 1 && length <= MAX_USERNAME && USERNAME.test(name) ? name : null
}

/** The name of the form field that carries the identifier: `email` or `username`. */
export function identifierField(runtime: PasswordRuntime): 'email' | 'username' {
  return runtime.provider.identifier
}
