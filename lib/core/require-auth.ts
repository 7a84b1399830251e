import type { NextFunction, Request, RequestHandler, Response } from 'express'
import { AAL_ACR } from '../infra/assurance-acr'
import type { Session, SessionRecordView } from '../infra/config/types'
import { AuthError, ConfigurationError, isAuthError } from '../infra/errors'
import { errorAnswer, sendError } from '../infra/http/error-response'
import { sendJson, sendRedirect } from '../infra/http/reply'
import { checkKeys, describe } from '../infra/util/options'
import type { BaseUrl } from '../infra/urls/base-url'
import { serviceOf, type RequestSession } from './request-session'
import type { Services } from './services'
import { clientSession } from './session/shape'

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

/** How `requireAuth()` answers a request without a session, or with one that proved too little. */
export interface RequireAuthOptions {
  /**
   * `'redirect'`: `302` to the sign-in page; `'status'`: `401` with a JSON body. Default: the
   * redirect for a top-level navigation of a browser, `401` for anything else (`fetch()`, an API client).
   */
  unauthenticated?: 'redirect' | 'status'
  /**
   * Step-up: seconds since the user last proved who they are (the session's `authTime`) at most.
   * Older: a page load is sent to sign in again (`{base}/signin?reauth=1&callbackUrl=…`), anything
   * else gets `401 {"error":"ReauthRequired","maxAge":…}` with RFC 9470's `WWW-Authenticate`.
   */
  maxAge?: number
  /** Step-up: `2`, the session was made with two factors (`amr` has `mfa`); answered as `maxAge` is. */
  aal?: 1 | 2
}

/** The ACR value RFC 9470's challenge names for an assurance level (kept in infra: the APIs' check uses it too). */
export { AAL_ACR }

/**
 * `requireAuth(options)`: middleware for the app's own pages and APIs (./helpers.ts `CoreHelpers`).
 * `readSession` and `recordView` are the helpers' own: one read of the session for every helper.
 */
export function requireAuthOf(
  svc: Services,
  readSession: (req: Request) => Promise<RequestSession | null>,
  recordView: (found: RequestSession) => SessionRecordView,
): (options?: RequireAuthOptions) => RequestHandler {
  const { config } = svc

  /** Never rejects: every outcome is an answer, or `next` (with the app's own error, if any). */
  async function guard(req: Request, res: Response, next: NextFunction, answer: Answer, want: StepUp): Promise<void> {
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
    const service = serviceOf(svc, req)
    if (found && session) {
      const view = recordView(found)
      if (service !== null && !meets(view, want)) return stepUp(req, res, service.base, want, answer)
      res.locals.session = session
      res.locals.sessionRecord = view
      return next()
    }
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

  /** Not proved enough: sign in again (a page load), or RFC 9470's 401 (anything else). */
  function stepUp(req: Request, res: Response, base: BaseUrl, need: StepUp, answer: Answer): void {
    const body = {
      error: 'ReauthRequired',
      ...(need.maxAge ? { maxAge: need.maxAge } : {}),
      ...(need.aal ? { aal: need.aal } : {}),
    }
    if (answer === 'status' || (answer === 'auto' && !isNavigation(req))) {
      const params = [
        'error="insufficient_user_authentication"',
        'error_description="A more recent or stronger authentication is required"',
        ...(need.maxAge ? [`max_age=${need.maxAge}`] : []),
        ...(need.aal ? [`acr_values="${AAL_ACR[need.aal]}"`] : []),
      ]
      res.setHeader('WWW-Authenticate', `Bearer ${params.join(', ')}`)
      return sendJson(res, 401, JSON.stringify(body), true)
    }
    const signIn = new URL(config.pages.signIn ?? `${base.href}/signin`, base.origin)
    signIn.searchParams.set('reauth', '1')
    signIn.searchParams.set('callbackUrl', base.origin + (req.originalUrl.startsWith('/') ? req.originalUrl : '/'))
    sendRedirect(res, signIn.href)
  }

  return (options) => {
    const answer = requireAuthAnswer(options)
    const want = stepUpOf(options)
    return (req: Request, res: Response, next: NextFunction) => {
      guard(req, res, next, answer, want).catch(next)
    }
  }
}

type Answer = 'redirect' | 'status' | 'auto'

/** What a route asks of a session beyond being one. */
interface StepUp {
  readonly maxAge?: number
  readonly aal?: 1 | 2
}

function meets(view: SessionRecordView, need: StepUp): boolean {
  if (need.maxAge !== undefined && Date.now() / 1000 - view.authTime > need.maxAge) return false
  return need.aal === undefined || view.aal >= need.aal
}

/** `maxAge` and `aal`, checked when the middleware is made. */
function stepUpOf(options: unknown): StepUp {
  if (typeof options !== 'object' || options === null) return {}
  const { maxAge, aal } = options as Record<string, unknown>
  if (maxAge !== undefined && !(typeof maxAge === 'number' && Number.isInteger(maxAge) && maxAge > 0))
    throw new ConfigurationError(
      `\`requireAuth.maxAge\` must be a whole number of seconds above 0; got ${describe(maxAge)}`,
    )
  if (aal !== undefined && aal !== 1 && aal !== 2)
    throw new ConfigurationError(`\`requireAuth.aal\` must be 1 or 2 (two factors); got ${describe(aal)}`)
  return { ...(maxAge === undefined ? {} : { maxAge }), ...(aal === undefined ? {} : { aal }) }
}

/** Checked when the middleware is made, at the app's start, not at the first request. */
function requireAuthAnswer(options: unknown): Answer {
  if (options === undefined) return 'auto'
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    throw new ConfigurationError(
      `requireAuth(options) takes an object such as { unauthenticated: 'status' }; got ${describe(options)}`,
    )
  const record = options as Record<string, unknown>
  checkKeys(record, ['unauthenticated', 'maxAge', 'aal'], 'requireAuth.')
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
