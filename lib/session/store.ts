import type { SessionRecord } from '../config/types'

/**
 * Where sessions live. The manager owns the cookie; a store only turns the cookie's token into a
 * record and back. The cookie store's token is the sealed record itself; the database store's token
 * is an opaque random value whose hash is the key.
 */
export interface SessionStore {
  /**
   * True when the token is the sealed record itself (the cookie store): one token always opens to the
   * same record, so what it answered can be remembered by its exact value. A database token names a
   * record that changes (renewal, update, sign-out), so its answer is remembered only while `vouch`'s
   * check holds.
   */
  readonly sealed?: boolean
  /**
   * For a record this store just read: a check that it is still what the store holds (a database
   * store kept current in memory, lib/store/redis-tracking.ts), so that what it answered can be
   * remembered while the check holds; null when the store cannot tell without I/O.
   */
  vouch?(record: SessionRecord): (() => boolean) | null
  /** The record for a token, or null for anything invalid, expired (or past `maxLifetime`) or unknown. Never throws for bad input. */
  read(token: string, nowSeconds: number, maxLifetime: number): Promise<SessionRecord | null>
  /** Stores the record and returns the token for the cookie (`previous` when the store keeps tokens). */
  write(record: SessionRecord, previous: string | null): Promise<string>
  /** Forgets the session behind a token (`record`: what it held, when it opened). */
  remove(token: string, record: SessionRecord | null): Promise<void>
  /** Forgets every session of a user that it can find (the database store; cookies cannot be reached). */
  removeAll(userId: string, nowSeconds: number): Promise<void>
}
