import type { Request, Response } from 'express'
import { sendEmpty } from './reply'

/**
 * The request headers a page on an allowed origin may send to a CORS route: `Content-Type` (the
 * NextAuth client sends `application/json` even on a GET; a JSON body), `X-Auth-Return-Redirect`
 * (its JSON mode) and `Authorization`. A fixed list, never the request's own list echoed back.
 */
const ALLOWED_HEADERS = 'Content-Type, X-Auth-Return-Redirect, Authorization'
/** Seconds a browser may reuse a preflight's answer. */
const MAX_AGE = '600'
const PREFLIGHT_VARY = 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers'

/**
 * CORS for the routes that say `cors` (lib/core/feature.ts), built once from `cors.origins`: an
 * `Origin` is allowed only when it is one of them exactly (one Set lookup, no pattern), and then it
 * is echoed with credentials; any other origin gets no CORS header at all.
 */
export class CorsPolicy {
  /** `trustedOrigins` and `cors.origins`: whom the origin check lets through on a CORS route. */
  readonly trusted: ReadonlySet<string>

  constructor(
    private readonly origins: ReadonlySet<string>,
    trustedOrigins: ReadonlySet<string>,
  ) {
    this.trusted = new Set([...trustedOrigins, ...origins])
  }

  /**
   * A request of the route's CORS method: its answer varies by `Origin` (a cache must not hand one
   * origin's answer, or its absence of CORS headers, to another); an allowed origin may read it with
   * credentials. True when the origin is allowed.
   */
  answer(req: Request, res: Response): boolean {
    // The hot path's GET /session: a constant header unless the app set a Vary of its own to add to.
    if (res.getHeader('Vary') === undefined) res.setHeader('Vary', 'Origin')
    else res.vary('Origin')
    const origin = req.headers.origin
    if (origin === undefined || !this.origins.has(origin)) return false
    res.setHeader('Access-Control-Allow-Origin', origin)
    res.setHeader('Access-Control-Allow-Credentials', 'true')
    return true
  }

  /**
   * `OPTIONS` on a CORS route: 204, with the CORS headers only for an allowed origin asking for the
   * route's method; any other preflight gets the same 204 without them, which the browser refuses.
   */
  preflight(req: Request, res: Response, method: 'GET' | 'POST'): void {
    res.vary(PREFLIGHT_VARY)
    const origin = req.headers.origin
    const allowed =
      origin !== undefined && this.origins.has(origin) && req.headers['access-control-request-method'] === method
    if (!allowed) return sendEmpty(res, 204)
    sendEmpty(res, 204, {
      'Access-Control-Allow-Origin': origin,
      'Access-Control-Allow-Credentials': 'true',
      'Access-Control-Allow-Methods': method,
      'Access-Control-Allow-Headers': ALLOWED_HEADERS,
      'Access-Control-Max-Age': MAX_AGE,
    })
  }
}
