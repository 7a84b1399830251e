import type { Request, RequestHandler, Response } from 'express'
import type { Session, SessionRecord, SessionRecordView } from '../infra/config/types'
import type { Services } from './services'
import { readRequestSession, type RequestSession } from './request-session'
import { requireAuthOf, type RequireAuthOptions, type SignedInLocals } from './require-auth'
import { toRecordView } from './session/record'
import { clientSession } from './session/shape'

export type { AuthLocals, RequireAuthOptions, SignedInLocals } from './require-auth'

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
  handleOf: (token: string, record: SessionRecord | null) => string | null,
): Omit<CoreHelpers, 'getCsrfToken' | 'verifyCsrfToken'> {
  const { config } = svc

  const readSession = (req: Request) => readRequestSession(svc, req)

  function recordView({ record, cookie }: RequestSession): SessionRecordView {
    const token = cookie.token()
    return toRecordView(record, token === null ? null : handleOf(token, record))
  }

  async function getSession(req: Request): Promise<Session | null> {
    const found = await readSession(req)
    return found ? clientSession(found.record, config.callbacks, svc.log) : null
  }

  async function getSessionRecord(req: Request): Promise<SessionRecordView | null> {
    const found = await readSession(req)
    return found ? recordView(found) : null
  }

  async function revokeSessions(userId: string): Promise<void> {
    if (typeof userId !== 'string' || userId === '')
      throw new TypeError('revokeSessions(userId) takes the user id of a session (SessionRecord.userId)')
    await svc.sessions.revokeAll(userId)
    svc.log('info', 'signout.everywhere', 'every session of a user was revoked by the app', svc.userForLog(userId))
    svc.audit.record({ event: 'signout.everywhere', userId })
  }

  // One handler for every route: requireAuth's type parameters only describe what the route's handlers see.
  const requireAuth = requireAuthOf(svc, readSession, recordView)
  const helpers = { getSession, getSessionRecord, requireAuth, revokeSessions }
  return Object.freeze(helpers as typeof helpers & Pick<CoreHelpers, 'requireAuth'>)
}
