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

/** The domain in lower-case ASCII (IDNA), with at least one dot; null when it is not a host name. */
function toDomain(text: string): string | null {
  if (text === '' || text.length > 253) return null
  const ascii = domainToASCII(text.toLowerCase())
  const labels = ascii.split('.')
  if (labels.length < 2 || !labels.every((label) => DOMAIN_LABEL.test(label))) return null
  return /^\d+$/.test(labels[labels.length - 1]!) ? null : ascii
}
