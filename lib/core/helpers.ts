import type { NextFunction, Request, RequestHandler, Response } from 'express'
import type { Session, SessionRecordView } from '../infra/config/types'
import { crossSiteRefused } from '../infra/csrf/origin'
import { readCookies, setCookie } from '../infra/http/cookies'
import { AuthError, ConfigurationError, isAuthError } from '../infra/errors'
import { errorAnswer, sendError } from '../infra/http/error-response'
import { NO_STORE, sendJson, sendRedirect } from '../infra/http/reply'
import type { Services } from './services'
import { readRequestSession, serviceOf, type RequestSession } from './request-session'
import { toRecordView } from './session/record'
import { clientSession } from './session/shape'
import { checkKeys, describe } from '../infra/util/options'

/**
 * What `requireAuth()` leaves in `res.locals`; both are absent on a route without `requireAuth()`.
 * Merged into Express's own `Locals` below, so `res.locals.session?.user` is typed on every handler
 * and `res.locals.session.nope` is a compile error. An app that declares `session` or
 * `sessionRecord` in `Express.Locals` itself must give them these types.
 */
export interface AuthLocals {
  /** The client session object, as `getSession(req)` gives it. */
  session?: Session
  /** The app's own view of the session, as `getSessionRecord(req)` gives it; never sent to the client. */
  sessionRecord?: SessionRecordView
}

/** `res.locals` after `requireAuth()` on the same route: both are set (no `?.` needed) there. */
export type SignedInLocals = Required<AuthLocals>

declare global {
  // Express's own declaration merging point for `res.locals` (@types/express-serve-static-core).
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    // eslint-disable-next-line @typescript-eslint/no-empty-object-type
    interface Locals extends AuthLocals {}
  }
}

/** How `requireAuth()` answers a request without a session. */
export interface RequireAuthOptions {
  /**
   * `'redirect'`: `302` to the sign-in page; `'status'`: `401` with a JSON body. Default: the
   * redirect for a top-level navigation of a browser, `401` for anything else (`fetch()`, an API client).
   */
  unauthenticated?: 'redirect' | 'status'
}

/** The core's helpers for the host app, carried by the router `auth()` returns (the features add theirs: lib/features.ts). */
export interface CoreHelpers {
  /**
   * The signed-in user's session object (as `GET /session` shows it), or null. Rejects with a
   * `ServiceUnavailable` AuthError when the session store (Redis) does not answer.
   */
  getSession(req: Request): Promise<Session | null>
  /**
   * The app's own view of the signed-in user's session: the whole server-side record (`userId`,
   * `user`, `data`, `provider`, `signedInAt`, `expires`) and its `handle` as `listSessions` gives it
   * (null for cookie sessions), frozen, or null. It is never sent to the client. Rejects with a `ServiceUnavailable` AuthError when the session store does not answer.
   */
  getSessionRecord(req: Request): Promise<SessionRecordView | null>
  /**
   * Middleware for pages and APIs that need a signed-in user. With a session it goes on and leaves
   * the session object in `res.locals.session` and the record in `res.locals.sessionRecord`.
   * Without one: a top-level navigation (`Sec-Fetch-Mode: navigate` or absent, and `text/html` in
   * `Accept`) gets `302` to the sign-in page with `callbackUrl` (this page) and
   * `error=SessionRequired`; any other request `401 {}` (`Cache-Control: no-store`).
   * `options.unauthenticated` forces one answer. A `RequestHandler` whose last signature gives the
   * handlers after it on the same route `res.locals` as {@link SignedInLocals}.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Express's own defaults
  requireAuth<P = Request['params'], ResBody = any, ReqBody = any, ReqQuery = Request['query']>(
    options?: RequireAuthOptions,
  ): RequestHandler & RequestHandler<P, ResBody, ReqBody, ReqQuery, SignedInLocals>
  /**
   * Ends every session of a user, on every instance: database sessions are deleted at once; cookie
   * sessions are refused from now on (on other instances as soon as Redis tells them, or within
   * `session.revocationDelay` when it cannot: see docs/session-stores.md).
   * Rejects with a `ServiceUnavailable` AuthError when the store does not answer.
   */
  revokeSessions(userId: string): Promise<void>
  /**
   * The CSRF token for a form on the app's own page, to post as `csrfToken` (to the service, e.g.
   * `POST /signout`, or to a route of the app that checks it with `verifyCsrfToken`): the token of
   * the browser's valid CSRF cookie, or a new one whose cookie is set on `res`. It also sets
   * `Cache-Control: private, no-cache, no-store` on `res`: a page with the token is for this browser
   * alone. Null only with `trustHost` and a Host header that is no host name.
   */
  getCsrfToken(req: Request, res: Response): string | null
  /**
   * Whether `submitted` (the form's `csrfToken` field, never a query or a header) is the token of
   * the browser's valid CSRF cookie, compared in constant time: for the app's own POST routes. A
   * browser POST from another site (`Sec-Fetch-Site: cross-site`, or a foreign `Origin`, unless
   * trusted) is false, as the service's own POSTs refuse it.
   */
  verifyCsrfToken(req: Request, submitted: unknown): boolean
}

/** `handleOf`: the `listSessions` handle of the session a cookie's token names (lib/core/session/devices.ts). */
export function createHelpers(
  svc: Services,
  handleOf: (token: string) => string | null,
): Omit<CoreHelpers, 'getCsrfToken' | 'verifyCsrfToken'> {
  const { config } = svc

  const readSession = (req: Request) => readRequestSession(svc, req)

  function recordView({ record, cookie }: RequestSession): SessionRecordView {
    const token = cookie.token()
    return toRecordView(record, token === null ? null : handleOf(token))
  }

  async function getSession(req: Request): Promise<Session | null> {
    const found = await readSession(req)
    return found ? clientSession(found.record, config.callbacks, svc.log) : null
  }

  async function getSessionRecord(req: Request): Promise<SessionRecordView | null> {
    const found = await readSession(req)
    return found ? recordView(found) : null
  }

  /** Never rejects: every outcome is an answer, or `next` (with the app's own error, if any). */
  async function guard(req: Request, res: Response, next: NextFunction, answer: Answer): Promise<void> {
    let found: RequestSession | null
    let session: Session | null
    try {
      found = await readSession(req)
      session = found ? await clientSession(found.record, config.callbacks, svc.log) : null
    } catch (error) {
      // The store does not answer: a 503 of ours (the page or `{"error":"ServiceUnavailable"}`),
      // not a 500 of the app's; anything else is the app's own error (its session callback's).
      if (isAuthError(error) && error.code === 'ServiceUnavailable')
        return sendError(req, res, error, errorAnswer(svc.languages, config.base?.href, req, res, config.theme))
      return next(error)
    }
    if (found && session) {
      res.locals.session = session
      res.locals.sessionRecord = recordView(found)
      return next()
    }
    const service = serviceOf(svc, req)
    if (service === null) {
      return sendError(req, res, new AuthError('InvalidHost', 'the Host header is not a host name'), {
        messages: errorAnswer(svc.languages, config.base?.href, req, res, config.theme).messages,
      })
    }
    if (answer === 'status' || (answer === 'auto' && !isNavigation(req))) return sendJson(res, 401, '{}', true)
    const { base } = service
    const signIn = new URL(config.pages.signIn ?? `${base.href}/signin`, base.origin)
    // An absolute-form request line (`GET http://other.example/x`) names no path of ours: back to the origin.
    signIn.searchParams.set('callbackUrl', base.origin + (req.originalUrl.startsWith('/') ? req.originalUrl : '/'))
    signIn.searchParams.set('error', 'SessionRequired')
    sendRedirect(res, signIn.href)
  }

  function requireAuth(options?: RequireAuthOptions): RequestHandler {
    const answer = requireAuthAnswer(options)
    return (req: Request, res: Response, next: NextFunction) => {
      guard(req, res, next, answer).catch(next)
    }
  }

  async function revokeSessions(userId: string): Promise<void> {
    if (typeof userId !== 'string' || userId === '')
      throw new TypeError('revokeSessions(userId) takes the user id of a session (SessionRecord.userId)')
    await svc.sessions.revokeAll(userId)
    svc.log('info', 'signout.everywhere', 'every session of a user was revoked by the app', svc.userForLog(userId))
  }

  // One handler for every route: requireAuth's type parameters only describe what the route's handlers see.
  const helpers = { getSession, getSessionRecord, requireAuth, revokeSessions }
  return Object.freeze(helpers as typeof helpers & Pick<CoreHelpers, 'requireAuth'>)
}

/** The CSRF helpers: the app's own forms carry the service's token (signed double-submit, lib/infra/csrf). */
export function createCsrfHelpers(svc: Services): Pick<CoreHelpers, 'getCsrfToken' | 'verifyCsrfToken'> {
  return Object.freeze({
    getCsrfToken(req: Request, res: Response): string | null {
      const def = serviceOf(svc, req)?.cookieSet.csrfToken ?? null
      if (def === null) return null
      // The token goes into the page (and maybe its pair into a Set-Cookie): no cache may keep it.
      if (!res.headersSent) res.setHeader('Cache-Control', NO_STORE)
      const found = svc.csrf.inspect(readCookies(req)[def.name])
      if (found !== null && !found.stale) return found.token
      const issued = found === null ? svc.csrf.issue() : svc.csrf.resign(found.token)
      setCookie(res, def, issued.cookieValue)
      return issued.token
    },
    verifyCsrfToken(req: Request, submitted: unknown): boolean {
      const service = serviceOf(svc, req)
      if (service === null) return false
      // The origin check the service's own POSTs pass (lib/infra/csrf/origin.ts), behind the token.
      if (crossSiteRefused(req.headers, service.base.origin, svc.config.trustedOrigins)) return false
      return svc.csrf.verify(readCookies(req)[service.cookieSet.csrfToken.name], submitted)
    },
  })
}

type Answer = 'redirect' | 'status' | 'auto'

/** Checked when the middleware is made, at the app's start, not at the first request. */
function requireAuthAnswer(options: unknown): Answer {
  if (options === undefined) return 'auto'
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    throw new ConfigurationError(
      `requireAuth(options) takes an object such as { unauthenticated: 'status' }; got ${describe(options)}`,
    )
  const record = options as Record<string, unknown>
  checkKeys(record, ['unauthenticated'], 'requireAuth.')
  const value = record.unauthenticated
  if (value === undefined) return 'auto'
  if (value === 'redirect' || value === 'status') return value
  throw new ConfigurationError(
    `\`requireAuth.unauthenticated\` must be 'redirect' (to the sign-in page) or 'status' (401); got ${describe(value)}`,
  )
}

/**
 * A browser's top-level navigation, the only request a redirect to an HTML page helps: `fetch()`
 * sends `Sec-Fetch-Mode: cors` and `Accept: *\/*`, an API client no `text/html`.
 */
function isNavigation(req: Request): boolean {
  const mode = req.headers['sec-fetch-mode']
  if (mode !== undefined && mode !== 'navigate') return false
  const accept = req.headers.accept
  return typeof accept === 'string' && accept.toLowerCase().includes('text/html')
}
