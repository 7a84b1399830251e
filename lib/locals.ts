import type { Session, SessionRecordView } from './config/types'

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
