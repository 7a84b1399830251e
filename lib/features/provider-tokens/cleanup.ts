import type { SessionRecord } from '../../infra/config/types'
import type { SessionLifecycle } from '../../core/session/lifecycle'
import type { TokenVault } from './redis-vault'

/** The Redis reference of a record's tokens, or null (none, or sealed in the record itself). */
const refOf = (record: SessionRecord | null) => (record?.tokens?.startsWith('r:') ? record.tokens.slice(2) : null)

/**
 * Provider tokens kept in Redis end with their session, and live as long as it does (a session
 * lifecycle: lib/core/session/lifecycle.ts). Every end of a session ends its tokens: sign-out, a
 * browser's old session replaced by a new sign-in, `revokeSession` from the device list and a
 * provider's back-channel logout; sign-out everywhere and the app's `revokeSessions` end every set
 * of the user, and sign-out of the others (`others=true`) every set but the kept session's. A
 * renewal moves their expiry with the session's. Sessions that end unseen (expiry, the per-user
 * cap) leave them to their TTL, which is the session's.
 */
export function tokenCleanup(vault: TokenVault): SessionLifecycle {
  return Object.freeze({
    async sessionEnded(record: SessionRecord) {
      const ref = refOf(record)
      if (ref !== null) await vault.forget(ref)
    },
    async userSessionsEnded(userId: string, kept: SessionRecord | null) {
      await vault.forgetUser(userId, refOf(kept))
    },
    async sessionRenewed(record: SessionRecord) {
      const ref = refOf(record)
      if (ref !== null) await vault.touch(ref, record.expiresAt)
    },
  })
}
