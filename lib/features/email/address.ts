import { domainToASCII } from 'node:url'

// One mailbox, and only one, ever receives a sign-in link. The address is Unicode-normalised (NFKC:
// a full-width `＠` becomes `@` here, not in some mail server later) and then held to a strict
// shape: exactly one `@`; an ASCII local part of RFC 5322 atoms joined by single dots, without the
// routing characters `%` and `!` (relays still rewrite `user%other.example@here` and bang paths to
// deliver elsewhere) and without `=?` (an encoded word); a domain of at least two labels,
// lower-cased and in its ASCII (IDNA) form. Quotes, commas, semicolons, angle brackets, parentheses,
// backslashes, whitespace, control and invisible characters can never appear, so no mail library or
// relay can read a second recipient, a display name or a header into it. Null for anything else.
// Every check runs in linear time.

/** The longest address (RFC 5321's path limit). */
export const MAX_ADDRESS_LENGTH = 254

const LOCAL_ATOM = /^[\w#$&'*+/=?^`{|}~-]+$/
const DOMAIN_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/

export function normalizeAddress(raw: unknown): string | null {
  if (typeof raw !== 'string' || raw.length > 4 * MAX_ADDRESS_LENGTH) return null
  const text = raw.normalize('NFKC').trim()
  const at = text.indexOf('@')
  if (at <= 0 || at !== text.lastIndexOf('@')) return null
  const local = text.slice(0, at)
  const domain = toDomain(text.slice(at + 1))
  if (domain === null || local.length > 64 || local.includes('=?')) return null
  if (!local.split('.').every((atom) => LOCAL_ATOM.test(atom))) return null
  const address = `${local}@${domain}`
  return address.length <= MAX_ADDRESS_LENGTH ? address : null
}

/**
 * Who signs in: the address in the form above, then the app's `normalizeIdentifier`, or by
 * default the whole address in lower case (one mailbox is one user, as in NextAuth: `Carol@` and
 * `carol@` reach one mailbox almost everywhere, so they are one user id, one session set to revoke,
 * one recipient). The app's rule is code of the app's, but its answer is untrusted: anything but a
 * string that is still one plain mailbox (a throw included) gives null, as an invalid address does.
 */
export function emailIdentifier(raw: unknown, rule: ((address: string) => unknown) | undefined): string | null {
  const address = normalizeAddress(raw)
  if (address === null) return null
  if (!rule) return address.toLowerCase()
  let answer: unknown
  try {
    answer = rule(address)
  } catch {
    return null
  }
  if (typeof answer === 'string') return normalizeAddress(answer)
  ignoreRejection(answer)
  return null
}

/** An async rule's promise is refused, never awaited: its rejection must not go unhandled (that ends the process). */
function ignoreRejection(answer: unknown): void {
  if (answer === null || (typeof answer !== 'object' && typeof answer !== 'function')) return
  try {
    Promise.resolve(answer).catch(() => undefined)
  } catch {
    // A promise whose `constructor` throws: there is nothing left to handle.
  }
}

/** The domain in lower-case ASCII (IDNA), with at least one dot; null when it is not a host name. */
function toDomain(text: string): string | null {
  if (text === '' || text.length > 253) return null
  const ascii = domainToASCII(text.toLowerCase())
  const labels = ascii.split('.')
  if (labels.length < 2 || !labels.every((label) => DOMAIN_LABEL.test(label))) return null
  return /^\d+$/.test(labels[labels.length - 1]!) ? null : ascii
}
