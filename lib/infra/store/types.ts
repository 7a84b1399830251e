/**
 * What the package keeps on the server besides sessions: in this process's memory by default, in
 * Redis when `redis` is set (then shared by every instance of the app).
 */
export interface ServerState {
  /** True when the state is shared between instances (Redis). */
  readonly shared: boolean
  readonly revocations: Revocations
  readonly sessionIndex: SessionIndex
  /** A counter of `points` per key and `duration` seconds, named for its keys. */
  limiter(name: string, points: number, duration: number): Limiter
}

/** A rate limit. */
export interface Limiter {
  /** Counts one for `key`: null when it is within the limit, else the seconds until it is again. */
  consume(key: string): Promise<number | null>
}

/**
 * Cookie sessions cannot be deleted where they are, so signing a user out everywhere records a
 * time instead: every session of that user signed in before it is refused. Both times, the
 * revocation's and each sign-in's, come from one clock per user (Redis's, with `redis` set), so
 * instances whose clocks disagree cannot let a session through.
 */
export interface Revocations {
  /**
   * Seconds since the epoch: sessions of this user signed in before it are revoked (0: none are).
   * Possibly as old as the revocation delay, unless `fresh`.
   */
  before(userId: string, fresh?: boolean): Promise<number>
  /** The sign-in time to record for a new session of this user: now, and never before its revocation time. */
  stamp(userId: string): Promise<number>
  /** Revokes every session of this user signed in up to and including this second. */
  revoke(userId: string): Promise<void>
}

/** The most sessions one user keeps in the index: a new sign-in beyond it ends the oldest. */
export const MAX_SESSIONS_PER_USER = 50

/** Database sessions: which session ids a user has, so that all of them can be deleted in one step. */
export interface SessionIndex {
  /**
   * Adds a session that ends at the latest at `untilSeconds`; drops entries already past theirs, and
   * the oldest beyond MAX_SESSIONS_PER_USER. Returns the ids it dropped that may still be alive.
   */
  add(userId: string, sid: string, untilSeconds: number): Promise<string[]>
  /** Whether the session is listed (a session that is not was ended, however its record came back). */
  has(userId: string, sid: string): Promise<boolean>
  /** The ids of the user's sessions that may still be alive (at most MAX_SESSIONS_PER_USER). */
  members(userId: string, nowSeconds: number): Promise<string[]>
  /** Forgets these ids. */
  remove(userId: string, sids: readonly string[]): Promise<void>
  /**
   * Forgets one id, answering whether this call did (one of two at once wins): a re-authentication
   * moving a session claims its old id. Without it, `has` then `remove` (not atomic).
   */
  claim?(userId: string, sid: string): Promise<boolean>
  /**
   * Lists `to` in place of `from` in one step, answering whether `from` was listed (else nothing
   * changes): a re-authentication moving a session, never trimming the user's other sessions, and
   * never leaving the session listed nowhere. Without it, `add` then `claim`.
   */
  move?(userId: string, from: string, to: string, untilSeconds: number): Promise<boolean>
}
