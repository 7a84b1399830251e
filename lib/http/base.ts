import type { Request } from 'express'
import type { ResolvedConfig } from '../config'
import type { CookieSet } from '../config/cookies'
import { baseUrl, DEFAULT_BASE_PATH, type BaseUrl } from '../config/url'
import { AuthError } from '../errors'

const HOST = /^(?:[a-z0-9.-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i

/** The service URL a request is served under, and the cookie set for its scheme. */
export function serviceFor(config: ResolvedConfig, req: Request): { base: BaseUrl; cookieSet: CookieSet } {
  const base = config.base ?? baseFromHeaders(req)
  return { base, cookieSet: base.secure ? config.cookies.secure : config.cookies.plain }
}

/** With `trustHost` and no `url` only: the service URL from the (trusted) proxy's headers. */
export function baseFromHeaders(req: Request): BaseUrl {
  const host = first(req.headers['x-forwarded-host']) ?? req.headers.host ?? ''
  const proto = first(req.headers['x-forwarded-proto']) ?? ((req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http')
  if (!HOST.test(host) || (proto !== 'http' && proto !== 'https')) throw new AuthError('InvalidBody', 'the Host header is not a host name')
  return baseUrl(`${proto}://${host.toLowerCase()}`, DEFAULT_BASE_PATH)
}

function first(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value[0] : value
  return text?.split(',', 1)[0]?.trim() || undefined
}
