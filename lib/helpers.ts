import type { NextFunction, Request, RequestHandler, Response } from 'express'
import type { Session } from './config/types'
import { serviceFor } from './http/base'
import { readCookies } from './http/cookies'
import { AuthError, isAuthError } from './errors'
import { errorAnswer, prefersJson, sendError } from './http/error-response'
import { sendJson, sendRedirect } from './http/reply'
import type { Services } from './services'
import { clientSession } from './session/shape'

/** The host app's helpers, carried by the router `auth()` returns. */
export interface AuthHelpers {
  /**
   * The signed-in user's session object (as `GET /session` shows it), or null. Rejects with a
   * `ServiceUnavailable` AuthError when the session store (Redis) does not answer.
   */
  getSession(req: Request): Promise<Session | null>
  /**
   * Middleware for pages and APIs that need a signed-in user. With a session it goes on and leaves
   * the session object in `res.locals.session`. Without one: `401 {}` for a request that prefers
   * JSON, else `302` to the sign-in page with `callbackUrl` (this page) and `error=SessionRequired`.
   */
  requireAuth(): RequestHandler
  /**
   * Ends every session of a user, on every instance: database sessions are deleted at once; cookie
   * sessions are refused from now on (on other instances within `session.revocationDelay`).
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

  async function getSession(req: Request): Promise<Session | null> {
    const service = serviceOf(req)
    if (service === null) return null
    const cookie = { cookies: readCookies(req), def: service.cookieSet.sessionToken, res: undefined }
    if (!svc.sessions.present(cookie)) return null
    const record = await svc.sessions.read(cookie)
    return record ? clientSession(record, config.callbacks, svc.log) : null
  }

  /** Never rejects: every outcome is an answer, or `next` (with the app's own error, if any). */
  async function guard(req: Request, res: Response, next: NextFunction): Promise<void> {
    let session: Session | null
    try {
      session = await getSession(req)
    } catch (error) {
      // The store does not answer: a 503 of ours (the page or `{"error":"ServiceUnavailable"}`),
      // not a 500 of the app's; anything else is the app's own error (its session callback's).
      if (isAuthError(error) && error.code === 'ServiceUnavailable')
        return sendError(req, res, error, errorAnswer(svc.languages, config.base?.href, req, res))
      return next(error)
    }
    if (session) {
      res.locals.session = session
      return next()
    }
    if (prefersJson(req)) return sendJson(res, 401, '{}')
    const service = serviceOf(req)
    if (service === null) {
      return sendError(req, res, new AuthError('InvalidHost', 'the Host header is not a host name'), {
        messages: errorAnswer(svc.languages, config.base?.href, req, res).messages,
      })
    }
    const { base } = service
    const signIn = new URL(config.pages.signIn ?? `${base.href}/signin`, base.origin)
    // An absolute-form request line (`GET http://other.example/x`) names no path of ours: back to the origin.
    signIn.searchParams.set('callbackUrl', base.origin + (req.originalUrl.startsWith('/') ? req.originalUrl : '/'))
    signIn.searchParams.set('error', 'SessionRequired')
    sendRedirect(res, signIn.href)
  }

  function requireAuth(): RequestHandler {
    return (req: Request, res: Response, next: NextFunction) => {
      guard(req, res, next).catch(next)
    }
  }

  async function revokeSessions(userId: string): Promise<void> {
    if (typeof userId !== 'string' || userId === '')
      throw new TypeError('revokeSessions(userId) takes the user id of a session (SessionRecord.userId)')
    await svc.sessions.revokeAll(userId)
    svc.log('info', 'signout.everywhere', 'every session of a user was revoked by the app', svc.userForLog(userId))
  }

  return Object.freeze({ getSession, requireAuth, revokeSessions })
}
