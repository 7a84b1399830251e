import type { Request, Response } from 'express'
import type { RateLimiterMemory } from 'rate-limiter-flexible'
import type { ResolvedConfig } from '../config'
import type { CookieSet } from '../config/cookies'
import type { BaseUrl } from '../config/url'
import type { Csrf } from '../csrf'
import type { Log } from '../logger'
import type { FlowCookies, FlowKeys } from '../providers/flow'
import type { OAuthRegistry } from '../providers/registry'
import type { SessionCookie, SessionManager } from '../session/manager'
import { checkCallbackUrl, safeCallbackUrl } from '../http/callback-url'
import { setCookie } from '../http/cookies'
import { sendJson, sendRedirect } from '../http/reply'

/** Everything built once by `auth()` that handlers use. */
export interface Services {
  readonly config: ResolvedConfig
  readonly csrf: Csrf
  readonly sessions: SessionManager
  readonly log: Log
  /** The `GET /providers` body, built once per service URL. */
  readonly providersJson: (base: BaseUrl) => string
  readonly oauth: OAuthRegistry
  readonly flowKeys: FlowKeys
  /** Counts `POST /_log` entries per client IP. */
  readonly clientLogLimiter: RateLimiterMemory
}

/** One request as a handler sees it. */
export interface Context {
  readonly req: Request
  readonly res: Response
  readonly svc: Services
  readonly base: BaseUrl
  readonly cookieSet: CookieSet
  readonly cookies: Record<string, unknown>
  readonly query: URLSearchParams
  /** The `:provider` segment, for the routes that have one. */
  readonly provider: string | undefined
  /** The parsed POST body (empty for GET). */
  readonly body: Record<string, unknown>
  /** The client asked for `{"url": …}` instead of a redirect (body `json=true` or `X-Auth-Return-Redirect: 1`). */
  readonly json: boolean
}

export type Handler = (ctx: Context) => Promise<void>

export function sessionCookie(ctx: Context): SessionCookie {
  return { cookies: ctx.cookies, def: ctx.cookieSet.sessionToken, res: ctx.res }
}

export function flowCookies(ctx: Context): FlowCookies {
  return { cookies: ctx.cookies, def: ctx.cookieSet.flow, res: ctx.res }
}

/**
 * The CSRF token of a valid cookie, or a new one whose cookie is set on this response. A cookie
 * signed under a rotated-out secret keeps its token and is signed again with the current one, so
 * that the old secret can be dropped without cutting off a browser.
 */
export function ensureCsrfToken(ctx: Context): string {
  const def = ctx.cookieSet.csrfToken
  const found = ctx.svc.csrf.inspect(ctx.cookies[def.name])
  if (found !== null && !found.stale) return found.token
  const issued = found === null ? ctx.svc.csrf.issue() : ctx.svc.csrf.resign(found.token)
  setCookie(ctx.res, def, issued.cookieValue)
  return issued.token
}

/**
 * A request parameter as a string: the POST body's field, else the query's. Only strings count:
 * an array or object (a host app's extended body parser makes them) is treated as absent.
 */
export function stringParam(ctx: Context, name: string): string | null {
  const fromBody = ctx.body[name]
  if (typeof fromBody === 'string') return fromBody
  return ctx.query.get(name)
}

/** `302 Location`, or `{"url"}` in JSON mode. */
export function respondRedirect(ctx: Context, url: string, jsonStatus = 200): void {
  if (ctx.json) sendJson(ctx.res, jsonStatus, JSON.stringify({ url }), true)
  else sendRedirect(ctx.res, url)
}

/** An absolute URL under the service: `{base}/signin?error=…`. */
export function serviceUrl(ctx: Context, path: string, query?: Record<string, string>): string {
  const search = query ? `?${new URLSearchParams(query)}` : ''
  return `${ctx.base.href}${path}${search}`
}

/** The app's own page (`pages.*`), absolute, with this request's query carried over. */
export function pageUrl(ctx: Context, page: string): string {
  const url = new URL(page, ctx.base.origin)
  for (const [name, value] of ctx.query) url.searchParams.append(name, value)
  return url.href
}

/**
 * Where to send the user after a sign-in or sign-out: the body's callbackUrl, else the query's,
 * else the callback-url cookie, else the origin; validated, then shown to the app's redirect
 * callback, whose answer is validated again.
 */
export async function callbackTarget(ctx: Context): Promise<string> {
  const { trustedOrigins, callbacks } = ctx.svc.config
  const raw = stringParam(ctx, 'callbackUrl') ?? ctx.cookies[ctx.cookieSet.callbackUrl.name]
  const accepted = checkCallbackUrl(raw, ctx.base, trustedOrigins)
  if (accepted === null && typeof raw === 'string' && raw !== '') {
    ctx.svc.log('info', 'redirect.rejected', 'a callbackUrl outside the trusted origins was replaced by the site origin')
  }
  const url = accepted ?? `${ctx.base.origin}/`
  if (!callbacks.redirect) return url
  return safeCallbackUrl(await callbacks.redirect({ url, baseUrl: ctx.base.origin }), ctx.base, trustedOrigins)
}

/** Runs an app event; a failing event is logged and never breaks the flow. */
export async function emit<T>(ctx: Context, name: string, event: ((message: T) => void | Promise<void>) | undefined, message: T): Promise<void> {
  if (!event) return
  try {
    await event(message)
  } catch (error) {
    ctx.svc.log('error', 'event.error', `events.${name} threw: ${error instanceof Error ? error.message : String(error)}`)
  }
}
