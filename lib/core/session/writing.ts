import type { SessionRecord, SessionUser } from '../../infra/config/types'
import type { DeviceInfo } from './device-info'
import type { SessionHooks } from './lifecycle'
import type { Revocations } from '../../infra/store/types'
import type { RecordStore } from './record-store'
import type { SessionTransport } from './transport'

export interface NewSession {
  userId: string
  user: SessionUser
  data?: Record<string, unknown>
  provider?: string
  /** Where the provider's tokens are (lib/features/provider-tokens/). */
  tokens?: string
  /** Those tokens could not be refreshed for good. */
  tokenError?: true
  /** How the user proved who they are (RFC 8176). */
  amr?: string[]
  /** When, if the provider says it was before the sign-in (seconds since the epoch). */
  authTime?: number
}

/**
 * Revocations that can tell a user's revocation time from memory, when they know it without I/O
 * (lib/infra/store/memory.ts: always; Redis's, lib/infra/store/redis-state.ts: while tracking vouches
 * for it, else within the revocation delay). A hit of the reply cache
 * needs it; without it every request opens its token.
 */
export type SessionRevocations = Revocations & { peek?(userId: string): number | undefined }

export interface SessionTiming {
  readonly maxAge: number
  readonly updateAge: number
  readonly maxLifetime: number
}

/** Seconds since the epoch, now. */
export const nowSeconds = () => Math.floor(Date.now() / 1000)

/** What the session manager's steps share, gathered once by createSessionManager (./manager.ts). */
export interface Parts {
  readonly records: RecordStore
  readonly timing: SessionTiming
  readonly revocations: SessionRevocations
  readonly hooks: SessionHooks
}

/**
 * Writes the record and hands the client the token the store answers. `previous`: the token it is
 * kept under (a renewal, an update), null for a new session. `device`: where a sign-in comes from.
 */
export async function writeSession(
  { records, hooks }: Parts,
  transport: SessionTransport,
  record: SessionRecord,
  previous: string | null,
  device: DeviceInfo | null,
  stored?: (sid: string | null) => Promise<void>,
): Promise<void> {
  // Only a sign-in says where it comes from: renewals and updates never rewrite it.
  const token = await (device === null ? records.write(record, previous) : records.write(record, previous, device))
  if (previous !== null) await hooks.sessionRenewed(record)
  transport.assertFits(token)
  if (stored) {
    try {
      await stored(records.listing?.sidOf(token) ?? null)
    } catch (error) {
      await records
        .remove(token, record)
        .then(() => hooks.sessionEnded(record, records.listing?.sidOf(token) ?? null))
        .catch(() => undefined)
      throw error
    }
  }
  transport.write(token, record.expiresAt - nowSeconds())
}
