import type { BaseUrl } from '../config/url'

// Control characters are refused outright: the URL parser silently drops tabs and newlines, which
// turns "/\t/evil.example" into the protocol-relative "//evil.example".
const UNSAFE = /[\u0000-\u001f\u007f\\]/
/**
 * Counted on the stored form (the absolute, percent-encoded URL: one non-ASCII character becomes
 * up to twelve), since that is what travels in a flow cookie or an e-mail link.
 */
export const MAX_CALLBACK_URL_LENGTH = 2048

/**
 * The redirect target a callbackUrl may name: a relative path resolved against the service's
 * origin, or an absolute http(s) URL on that origin or a trusted one. Anything else (protocol-
 * relative, backslashes, userinfo, other schemes, malformed) becomes the origin. Never throws.
 */
export function safeCallbackUrl(value: unknown, base: BaseUrl, trustedOrigins: ReadonlySet<string>): string {
  return checkCallbackUrl(value, base, trustedOrigins) ?? `${base.origin}/`
}

/** The accepted absolute target, or null when `value` is absent or refused. */
export function checkCallbackUrl(value: unknown, base: BaseUrl, trustedOrigins: ReadonlySet<string>): string | null {
  if (typeof value !== 'string' || value === '' || value.length > MAX_CALLBACK_URL_LENGTH || UNSAFE.test(value)) return null
  if (value.startsWith('//')) return null
  let url: URL
  try {
    url = new URL(value, `${base.origin}/`)
  } catch {
    return null
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null
  if (url.username !== '' || url.password !== '') return null
  if (url.origin !== base.origin && !trustedOrigins.has(url.origin)) return null
  return url.href.length > MAX_CALLBACK_URL_LENGTH ? null : url.href
}
