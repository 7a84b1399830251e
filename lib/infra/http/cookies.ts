import cookieParser from 'cookie-parser'
import type { Request, Response } from 'express'
import type { CookieDef } from '../config/cookies'

const parse = cookieParser()
const noop = () => {}
const EPOCH = 'Thu, 01 Jan 1970 00:00:00 GMT'

/**
 * The request's cookies: what the host app's own cookie-parser found, else a parse by cookie-parser
 * into an object of our own, so that the request is left as it was (a host cookie-parser with a
 * secret that runs later still parses its signed cookies). Values are `unknown`: cookie-parser turns
 * `j:`-prefixed values into objects, and every reader treats a non-string as absent.
 */
export function readCookies(req: Request): Record<string, unknown> {
  if (req.cookies) return req.cookies as Record<string, unknown>
  const holder = { headers: { cookie: req.headers.cookie } } as unknown as Request
  parse(holder, undefined as never, noop)
  return holder.cookies as Record<string, unknown>
}

/**
 * One cookie of a request as the code that reads and writes it sees it: the request's parsed
 * cookies, the cookie's definition, and the response that sets it. The flow cookies
 * (lib/core/sign-in/flow.ts); the session cookie has its transport instead
 * (lib/core/session/cookie-transport.ts).
 */
export interface CookieIo {
  readonly cookies: Record<string, unknown>
  readonly def: CookieDef
  readonly res: Response
}

export function setCookie(res: Response, def: CookieDef, value: string, maxAgeSeconds?: number, name = def.name): void {
  let line = `${name}=${value}${def.attrs}`
  if (maxAgeSeconds !== undefined) {
    line += `; Max-Age=${maxAgeSeconds}; Expires=${new Date(Date.now() + maxAgeSeconds * 1000).toUTCString()}`
  }
  appendSetCookie(res, line)
}

export function clearCookie(res: Response, def: CookieDef, name = def.name): void {
  appendSetCookie(res, `${name}=${def.attrs}; Max-Age=0; Expires=${EPOCH}`)
}

function appendSetCookie(res: Response, line: string): void {
  const previous = res.getHeader('Set-Cookie')
  if (previous === undefined) res.setHeader('Set-Cookie', line)
  else res.setHeader('Set-Cookie', Array.isArray(previous) ? [...previous, line] : [String(previous), line])
}
