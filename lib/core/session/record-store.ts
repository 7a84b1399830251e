import type { SessionRecord } from '../../infra/config/types'
import type { DeviceInfo } from './device-info'

/**
 * Where sessions live. The manager owns the cookie; a store only turns the cookie's token into a
 * record and back. The cookie store's token is the sealed record itself; the database store's token
 * is an opaque random value whose hash is the key.
 */
export interface SessionStore {
  /**
   * For the reply cache of `GET /session` only (reply-cache.ts), not part of keeping records: how
   * long the answer about a record this store just read may be reused for the same token. 'always'
   * when the token is the sealed record itself (the cookie store: one token always opens to the same
   * record); a check that the record is still what the store holds (a database store kept current in
   * memory, lib/infra/store/redis/); null when the store cannot tell without I/O. A store
   * without it has no answer reused.
   */
  readonly replyCacheCheck?: (record: SessionRecord) => 'always' | (() => boolean) | null
  /** The record for a token, or null for anything invalid, expired (or past `maxLifetime`) or unknown. Never throws for bad input. */
  read(token: string, nowSeconds: number, maxLifetime: number): Promise<SessionRecord | null>
  /**
   * Stores the record and returns the token for the cookie (`previous` when the store keeps tokens).
   * `device`: where a new session signed in from (kept beside it by the database store, for listing).
   */
  write(record: SessionRecord, previous: string | null, device?: DeviceInfo | null): Promise<string>
  /** Forgets the session behind a token (`record`: what it held, when it opened). */
  remove(token: string, record: SessionRecord | null): Promise<void>
  /**
   * Forgets every session of a user that it can find (the database store; cookies cannot be reached),
   * but the one of the token `keep`, when given.
   */
  removeAll(userId: string, nowSeconds: number, keep?: string): Promise<void>
  /** A user's sessions one by one (the database store only: cookie sessions are nowhere to be found). */
  readonly sessions?: SessionListing
}

/** One listed session: its id in the store, its record and where it signed in from (null: not known). */
export interface ListedSession {
  readonly sid: string
  readonly record: SessionRecord
  readonly device: DeviceInfo | null
}

export interface SessionListing {
  /** The user's listed, valid sessions (at most MAX_SESSIONS_PER_USER). */
  list(userId: string, nowSeconds: number, maxLifetime: number): Promise<ListedSession[]>
  /**
   * Ends one session of the user, as sign-out does (unlisted, then deleted): whether it was listed.
   * `record`: what it held, when the caller has it (lib/features/provider-tokens/cleanup.ts ends its provider tokens).
   */
  end(userId: string, sid: string, record?: SessionRecord): Promise<boolean>
  /** The id in the store of the session a cookie's token names (null for a token this store never issues). */
  sidOf(token: string): string | null
}
