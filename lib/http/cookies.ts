import cookieParser from 'cookie-parser'
import type { Request, Response } from 'express'
import type { CookieDef } from '../config/cookies'

const parse = cookieParser()
const noop = () => {}
const EPOCH = 'Thu, 01 Jan 1970 00:00:00 GMT'

/**
 * The request's cookies, parsed once per request by cookie-parser (or taken from the host app's own
 * cookie-parser). Values are `unknown`: cookie-parser turns `j:`-prefixed values into objects, and
 * every reader must treat a non-string as absent.
 */
export function readCookies(req: Request): Record<string, unknown> {
  if (!req.cookies) parse(req, undefined as never, noop)
  return req.cookies as Record<string, unknown>
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
