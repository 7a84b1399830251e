import type { BaseUrl } from '../config/url'

// Control characters are refused outright: the URL parser silently drops tabs and newlines, which
// turns "/\t/evil.example" into the protocol-relative "//evil.example".
const UNSAFE = /[\u0000-\u001f\u007f\\]/
const MAX_LENGTH = 2048

/**
 * The redirect target a callbackUrl may name: a relative path resolved against the service's
 * origin, or an absolute http(s) URL on that origin or a trusted one. Anything else (protocol-
 * relative, backslashes, userinfo, other schemes, malformed) becomes the origin. Never throws.
 */
export function safeCallbackUrl(value: unknown, base: BaseUrl, trustedOrigins: ReadonlySet<string>): string {
  const fallback = `${base.origin}/`
  if (typeof value !== 'string' || value === '' || value.length > MAX_LENGTH || UNSAFE.test(value)) return fallback
  if (value.startsWith('//')) return fallback
  let url: URL
  try {
    url = new URL(value, fallback)
  } catch {
    return fallback
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return fallback
  if (url.username !== '' || url.password !== '') return fallback
  if (url.origin !== base.origin && !trustedOrigins.has(url.origin)) return fallback
  return url.href
}
