import type { SessionRecord } from '../../infra/config/types'
import type { DeviceInfo } from './device-info'

/**
 * How long what was found about a record just read may stand for its token without reading it
 * again: for the reply cache of `GET /session` (./reply-cache.ts, which besides checks expiry,
 * renewal and the user's revocations on every use), not part of keeping records.
 * - `'always'`: the token is the sealed record itself (the cookie store), and opens to the same
 *   record as long as it lives;
 * - a function: whether the store still holds this very record (a database store kept current in
 *   memory, lib/infra/store/redis/), asked on every use;
 * - `'never'`: the store cannot tell without I/O, and nothing is reused.
 * It travels beside the record, by value: a copy of the record (a wrapper, a callback's) keeps it.
 */
export type Reuse = 'always' | 'never' | (() => boolean)

/** A record a token opened to, and how long what was found about it may be reused (`Reuse`). */
export interface OpenedRecord {
  readonly record: SessionRecord
  readonly reuse: Reuse
}

/**
 * Where the session layer keeps records: a record store turns a session token into its record and
 * back, nothing more. The manager (./manager.ts) reaches the client through a transport
 * (./transport.ts) and runs the features' lifecycle (./lifecycle.ts); the store knows neither. The
 * cookie store's token is the sealed record itself (./cookie-store.ts); the database store's is an
 * opaque random value whose hash keys the record in an express-session store (./database-store.ts).
 * Not an express-session store (`ExpressSessionStore`, lib/infra/store/express-session-store.ts):
 * the database store writes to one.
 */
export interface RecordStore {
  /**
   * The record for a token, with how long it may be reused; null for anything invalid, expired (or
   * past `maxLifetime`) or unknown. Never throws for bad input.
   */
  read(token: string, nowSeconds: number, maxLifetime: number): Promise<OpenedRecord | null>
  /**
   * Stores the record and returns the token the transport hands the client (`previous` when the store
   * keeps tokens).
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
  /** The store's listing: a user's sessions one by one (the database store only; cookie sessions are nowhere). */
  readonly listing?: SessionListing
  /**
   * The database store: the session of token `previous` goes on under a new token (a
   * re-authentication): the record is kept under the new token's id, listed and with its device
   * entry, and the old token opens nothing any more. The session stays the same one: its handle
   * (`record.handleSid`), and whatever names it by its old id (a provider's back-channel logout) finds
   * it still. Answers the new token, and the record as kept; null when the old token's session was
   * ended or moved meanwhile (a revokeSession, the same re-authentication submitted twice): then
   * nothing is kept. The cookie store has none: any write is a new token.
   */
  rekey?(record: SessionRecord, previous: string): Promise<{ token: string; record: SessionRecord } | null>
}

/** One listed session: its id in the store, its record and where it signed in from (null: not known). */
export interface ListedSession {
  readonly sid: string
  readonly record: SessionRecord
  readonly device: DeviceInfo | null
}

/** A record store's sessions one user at a time (`RecordStore.listing`: `listSessions`, `revokeSession`). */
export interface SessionListing {
  /** The user's listed, valid sessions (at most MAX_SESSIONS_PER_USER). */
  list(userId: string, nowSeconds: number, maxLifetime: number): Promise<ListedSession[]>
  /**
   * Ends one session of the user, as sign-out does (unlisted, then deleted), then runs the features'
   * `sessionEnded` (./lifecycle.ts): whether it was listed. `record`: what it held, when the caller
   * has it (else it is read for the hooks).
   */
  end(userId: string, sid: string, record?: SessionRecord): Promise<boolean>
  /** The id in the store of the session a cookie's token names (null for a token this store never issues). */
  sidOf(token: string): string | null
}
