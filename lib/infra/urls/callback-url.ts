import type { BaseUrl } from './base-url'
import type { Log } from '../logger'
import { parseHttpUrl } from './http-url'

// Control characters are refused outright: the URL parser silently drops tabs and newlines, which
// turns "/\t/evil.example" into the protocol-relative "//evil.example".
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const UNSAFE = /[\u0000-\u001f\u007f\\]/
/**
 * Counted on the stored form (the absolute, percent-encoded URL: one non-ASCII character becomes
 * up to twelve), since that is what travels in a flow cookie or an e-mail link.
 */
export const MAX_CALLBACK_URL_LENGTH = 2048

/** What the app's `redirect` callback is shown (`callbacks.redirect` in the options). */
export interface RedirectCallbackParams {
  /** The already-validated absolute target. */
  url: string
  /** The origin of the service URL. */
  baseUrl: string
}

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
  if (typeof value !== 'string' || value === '' || value.length > MAX_CALLBACK_URL_LENGTH || UNSAFE.test(value))
    return null
  if (value.startsWith('//')) return null
  const url = parseHttpUrl(value, `${base.origin}/`)
  if (!url) return null
  if (url.username !== '' || url.password !== '') return null
  if (url.origin !== base.origin && !trustedOrigins.has(url.origin)) return null
  return url.href.length > MAX_CALLBACK_URL_LENGTH ? null : url.href
}

/**
 * Where to send the user after a sign-in or sign-out: the request's callbackUrl validated (else the
 * origin), then shown to the app's redirect callback, whose answer is validated again.
 */
export async function chooseCallbackUrl(
  raw: string | null,
  base: BaseUrl,
  trustedOrigins: ReadonlySet<string>,
  redirect: ((params: RedirectCallbackParams) => string | Promise<string>) | undefined,
  log: Log,
): Promise<string> {
  const accepted = checkCallbackUrl(raw, base, trustedOrigins)
  if (accepted === null && raw)
    log('info', 'redirect.rejected', 'a callbackUrl outside the trusted origins was replaced by the site origin')
  const url = accepted ?? `${base.origin}/`
  if (!redirect) return url
  return safeCallbackUrl(await redirect({ url, baseUrl: base.origin }), base, trustedOrigins)
}
