import type { Session, SessionRecordView } from './config/types'

/**
 * What `requireAuth()` leaves in `res.locals`, typed for the app by declaration merging on Express's
 * `Locals` (Express 4 and 5 types): `res.locals.session?.user` compiles, `res.locals.session?.nope`
 * does not. Both are absent on a route without `requireAuth()`, hence optional.
 */
export interface AuthLocals {
  /** The client session object, as `getSession(req)` gives it. */
  session?: Session
  /** The app's own view of the session, as `getSessionRecord(req)` gives it; never sent to the client. */
  sessionRecord?: SessionRecordView
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    // eslint-disable-next-line @typescript-eslint/no-empty-object-type
    interface Locals extends AuthLocals {}
  }
}
