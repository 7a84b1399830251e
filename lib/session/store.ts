import type { SessionRecord } from '../config/types'

/**
 * Where sessions live. The manager owns the cookie; a store only turns the cookie's token into a
 * record and back. The cookie store's token is the sealed record itself; a database store's token
 * is an opaque random value whose hash is the key (a later issue).
 */
export interface SessionStore {
  /** The record for a token, or null for anything invalid, expired (or past `maxLifetime`) or unknown. Never throws for bad input. */
  read(token: string, nowSeconds: number, maxLifetime: number): Promise<SessionRecord | null>
  /** Stores the record and returns the token for the cookie (`previous` when the store keeps tokens). */
  write(record: SessionRecord, previous: string | null): Promise<string>
  /** Forgets the session behind a token. */
  remove(token: string): Promise<void>
}
