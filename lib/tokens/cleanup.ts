import type { SessionRecord } from '../config/types'
import type { SessionStore } from '../session/record-store'
import type { TokenVault } from './redis-vault'

/** The Redis reference of a record's tokens, or null (none, or sealed in the record itself). */
const refOf = (record: SessionRecord | null | undefined) =>
  record?.tokens?.startsWith('r:') ? record.tokens.slice(2) : null

/**
 * A session store whose every end of a session also ends its provider tokens in Redis: sign-out
 * (its record), sign-out everywhere and the app's `revokeSessions` (every set of the user, but the
 * kept session's), and a write (a renewal) moves their expiry with the session's. Sessions that end
 * unseen (expiry, a browser's old session replaced by a new sign-in) leave them to their TTL.
 */
export function withTokenCleanup(store: SessionStore, vault: TokenVault): SessionStore {
  const wrapped: SessionStore = {
    read: (token, nowSeconds, maxLifetime) => store.read(token, nowSeconds, maxLifetime),
    async write(record, previous, device) {
      const token = await (device === undefined ? store.write(record, previous) : store.write(record, previous, device))
      const ref = refOf(record)
      if (ref !== null && previous !== null) await vault.touch(ref, record.expiresAt)
      return token
    },
    async remove(token, record) {
      await store.remove(token, record)
      const ref = refOf(record)
      if (ref !== null) await vault.forget(ref)
    },
    async removeAll(userId, nowSeconds, keep) {
      const kept = keep === undefined ? null : refOf(await store.read(keep, nowSeconds, Infinity).catch(() => null))
      await (keep === undefined ? store.removeAll(userId, nowSeconds) : store.removeAll(userId, nowSeconds, keep))
      await vault.forgetUser(userId, kept)
    },
  }
  if (store.replyCacheCheck) Object.assign(wrapped, { replyCacheCheck: store.replyCacheCheck })
  if (store.sessions) Object.assign(wrapped, { sessions: store.sessions })
  return Object.freeze(wrapped)
}
