import type { SessionRecord } from '../../infra/config/types'
import type { SessionListing, SessionStore } from '../../core/session/record-store'
import type { TokenVault } from './redis-vault'

/** The Redis reference of a record's tokens, or null (none, or sealed in the record itself). */
const refOf = (record: SessionRecord | null | undefined) =>
  record?.tokens?.startsWith('r:') ? record.tokens.slice(2) : null

const nowSeconds = () => Math.floor(Date.now() / 1000)

/**
 * A session store whose every end of a session also ends its provider tokens in Redis: sign-out
 * (its record), a browser's old session replaced by a new sign-in (the manager names only its
 * token: read first), `revokeSession` from the device list (./listing below), sign-out everywhere
 * and the app's `revokeSessions` (every set of the user, but the kept session's), and a write (a
 * renewal) moves their expiry with the session's. Sessions that end unseen (expiry) leave them to
 * their TTL, which is the session's.
 */
export function withTokenCleanup(store: SessionStore, vault: TokenVault): SessionStore {
  /** What a token's session held, for its ref: never an error (the store's own call reports those). */
  const held = (token: string) =>
    store.read(token, nowSeconds(), Infinity).then(
      (opened) => opened?.record ?? null,
      () => null,
    )
  const wrapped: SessionStore = {
    read: (token, nowSeconds, maxLifetime) => store.read(token, nowSeconds, maxLifetime),
    async write(record, previous, device) {
      const token = await (device === undefined ? store.write(record, previous) : store.write(record, previous, device))
      const ref = refOf(record)
      if (ref !== null && previous !== null) await vault.touch(ref, record.expiresAt)
      return token
    },
    async remove(token, record) {
      const ref = refOf(record ?? (await held(token)))
      await store.remove(token, record)
      if (ref !== null) await vault.forget(ref)
    },
    async removeAll(userId, nowSeconds, keep) {
      const kept = keep === undefined ? null : refOf(await held(keep))
      await (keep === undefined ? store.removeAll(userId, nowSeconds) : store.removeAll(userId, nowSeconds, keep))
      await vault.forgetUser(userId, kept)
    },
  }
  if (store.sessions) Object.assign(wrapped, { sessions: listing(store.sessions, vault) })
  return Object.freeze(wrapped)
}

/** The store's listing, whose `end` (revokeSession) also ends the session's tokens. */
function listing(sessions: SessionListing, vault: TokenVault): SessionListing {
  return Object.freeze({
    list: (userId: string, now: number, maxLifetime: number) => sessions.list(userId, now, maxLifetime),
    sidOf: (token: string) => sessions.sidOf(token),
    async end(userId: string, sid: string, record?: SessionRecord) {
      const found =
        record ?? (await sessions.list(userId, nowSeconds(), Infinity)).find((one) => one.sid === sid)?.record
      const ended = await sessions.end(userId, sid)
      const ref = refOf(found)
      if (ended && ref !== null) await vault.forget(ref)
      return ended
    },
  })
}
