import type { NextFunction, Request, RequestHandler, Response } from 'express'
import type { Session, SessionRecord, SessionRecordView } from './config/types'
import { serviceFor } from './http/base'
import { readCookies } from './http/cookies'
import { AuthError, ConfigurationError, isAuthError } from './errors'
import { errorAnswer, sendError } from './http/error-response'
import { sendJson, sendRedirect } from './http/reply'
import type { Services } from './services'
import { toRecordView } from './session/record'
import { clientSession } from './session/shape'
import { checkKeys, describe } from './util/options'

/**
 * What `requireAuth()` leaves in `res.locals`. Express types `res.locals` as `Record<string, any>`
 * by default, and `any` wins over a declaration merged into `Express.Locals`; so the app names
 * these locals on the handler: `(req, res: Response<unknown, AuthLocals>) => …`, and then
 * `res.locals.session?.nope` is a compile error. Both are absent on a route without `requireAuth()`.
 */
export interface AuthLocals {
  /** The client session object, as `getSession(req)` gives it. */
  session?: Session
  /** The app's own view of the session, as `getSessionRecord(req)` gives it; never sent to the client. */
  sessionRecord?: SessionRecordView
}

/** How `requireAuth()` answers a request without a session. */
export interface RequireAuthOptions {
  /**
   * `'redirect'`: `302` to the sign-in page; `'status'`: `401` with a JSON body. Default: the
   * redirect for a top-level navigation of a browser, `401` for anything else (`fetch()`, an API client).
   */
  unauthenticated?: 'redirect' | 'status'
}

/** The host app's helpers, carried by the router `auth()` returns. */
export interface AuthHelpers {
  /**
   * The signed-in user's session object (as `GET /session` shows it), or null. Rejects with a
   * `ServiceUnavailable` AuthError when the session store (Redis) does not answer.
   */
  getSession(req: Request): Promise<Session | null>
  /**
   * The app's own view of the signed-in user's session: the whole server-side record (`userId`,
   * `user`, `data`, `provider`, `signedInAt`, `expires`), frozen, or null. It is never sent to the
   * client. Rejects with a `ServiceUnavailable` AuthError when the session store does not answer.
   */
  getSessionRecord(req: Request): Promise<SessionRecordView | null>
  /**
   * Middleware for pages and APIs that need a signed-in user. With a session it goes on and leaves
   * the session object in `res.locals.session` and the record in `res.locals.sessionRecord`.
   * Without one: a top-level navigation (`Sec-Fetch-Mode: navigate` or absent, and `text/html` in
   * `Accept`) gets `302` to the sign-in page with `callbackUrl` (this page) and
   * `error=SessionRequired`; any other request `401 {}` (`Cache-Control: no-store`).
   * `options.unauthenticated` forces one answer.
   */
  requireAuth(options?: RequireAuthOptions): RequestHandler
  /**
   * Ends every session of a user, on every instance: database sessions are deleted at once; cookie
   * sessions are refused from now on (on other instances as soon as Redis tells them, or within
   * `session.revocationDelay` when it cannot: see docs/session-stores.md).
   * Rejects with a `ServiceUnavailable` AuthError when the store does not answer.
   */
  revokeSessions(userId: string): Promise<void>
}

export function createHelpers(svc: Services): AuthHelpers {
  const { config } = svc

  /** The request's service URL and cookies; null for a Host that is not one (trustHost only). */
  function serviceOf(req: Request): ReturnType<typeof serviceFor> | null {
    try {
      return serviceFor(config, req)
    } catch {
      return null
    }
  }

  async function readRecord(req: Request): Promise<SessionRecord | null> {
    const service = serviceOf(req)
    if (service === null) return null
    const cookie = { cookies: readCookies(req), def: service.cookieSet.sessionToken, res: undefined }
    if (!svc.sessions.present(cookie)) return null
    return svc.sessions.read(cookie)
  }

  async function getSession(req: Request): Promise<Session | null> {
    const record = await readRecord(req)
    return record ? clientSession(record, config.callbacks, svc.log) : null
  }

  async function getSessionRecord(req: Request): Promise<SessionRecordView | null> {
    const record = await readRecord(req)
    return record ? toRecordView(record) : null
  }

  /** Never rejects: every outcome is an answer, or `next` (with the app's own error, if any). */
  async function guard(req: Request, res: Response, next: NextFunction, answer: Answer): Promise<void> {
    let record: SessionRecord | null
    let session: Session | null
    try {
      record = await readRecord(req)
      session = record ? await clientSession(record, config.callbacks, svc.log) : null
    } catch (error) {
      // The store does not answer: a 503 of ours (the page or `{"error":"ServiceUnavailable"}`),
      // not a 500 of the app's; anything else is the app's own error (its session callback's).
      if (isAuthError(error) && error.code === 'ServiceUnavailable')
        return sendError(req, res, error, errorAnswer(svc.languages, config.base?.href, req, res))
      return next(error)
    }
    if (record && session) {
      res.locals.session = session
      res.locals.sessionRecord = toRecordView(record)
      return next()
    }
    const service = serviceOf(req)
    if (service === null) {
      return sendError(req, res, new AuthError('InvalidHost', 'the Host header is not a host name'), {
        messages: errorAnswer(svc.languages, config.base?.href, req, res).messages,
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

  return Object.freeze({ getSession, getSessionRecord, requireAuth, revokeSessions })
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
