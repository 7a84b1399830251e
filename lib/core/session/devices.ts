import type { KeyRing } from '../../infra/crypto/keys'
import { mac, verifyMac } from '../../infra/crypto/mac'
import { ConfigurationError } from '../../infra/errors'
import type { Revocations } from '../../infra/store/types'
import type { SessionRecord } from '../../infra/config/types'
import type { RecordStore } from './record-store'
import { revocableSince } from './record'

/** One of a user's sessions as `listSessions` shows it: nothing in it opens the session. */
export interface DeviceSession {
  /**
   * Names the session for `revokeSession`: an HMAC of its id under a key of its own, so that it cannot
   * be turned into a cookie, nor found in the store.
   */
  readonly handle: string
  /** Seconds since the epoch: when the user signed in. */
  readonly signedInAt: number
  /** Seconds since the epoch: when the session was last issued or renewed. */
  readonly renewedAt: number
  /** Seconds since the epoch: when it ends unless renewed. */
  readonly expiresAt: number
  /** The provider the user signed in with, when known. */
  readonly provider: string | null
  /** The browser's `User-Agent` when it signed in (at most 256 characters, no control characters). */
  readonly userAgent: string | null
  /** The client address when it signed in, as the rate limits count it: an IPv6 address by its /64. */
  readonly address: string | null
}

/** The router's helpers for a user's sessions, one by one. */
export interface DeviceHelpers {
  /**
   * The user's sessions, newest sign-in first (database sessions; at most 50 a user). Rejects with a
   * ConfigurationError for cookie sessions, which are kept by the browsers alone and cannot be listed,
   * and with a `ServiceUnavailable` AuthError when the store does not answer.
   */
  listSessions(userId: string): Promise<DeviceSession[]>
  /**
   * Ends one session of the user, on every instance, as sign-out does: whether one was ended (false
   * for a handle that names no session of this user). Database sessions only, like `listSessions`.
   */
  revokeSession(userId: string, handle: string): Promise<boolean>
}

/**
 * The handle `listSessions` gives the session a cookie's token names: how the app finds the
 * current device in the list (`getSessionRecord(req).handle`). Null for cookie sessions, which are
 * never listed. `record`: what the token opened to (a re-authenticated session keeps the handle it
 * signed in with, `handleSid`).
 */
/** The handles of the database session the store keeps as `sid` under every key of the ring, the current first. */
export function handlesOfSid(ring: KeyRing, sid: string, record: SessionRecord): string[] {
  return ring.all.map((key) => mac(key, record.handleSid ?? sid))
}

export function handleOfToken(
  records: RecordStore,
  ring: KeyRing,
): (token: string, record: SessionRecord | null) => string | null {
  return (token, record) => {
    const sid = records.listing?.sidOf(token) ?? null
    return sid === null ? null : mac(ring.current, record?.handleSid ?? sid)
  }
}

export function createDevices(
  records: RecordStore,
  ring: KeyRing,
  revocations: Revocations,
  maxLifetime: number,
  /** After `revokeSession` ended a session: the audit stream's record of it (lib/core/audit.ts). */
  revoked: (userId: string, handle: string, record: SessionRecord) => void,
): DeviceHelpers {
  /** The store's listing: database sessions only. */
  const requireListing = () => {
    if (records.listing === undefined)
      throw new ConfigurationError(
        "listSessions and revokeSession need session.strategy 'database': cookie sessions cannot be listed or ended one by one; revokeSessions(userId) ends them all",
      )
    return records.listing
  }
  const checkUser = (name: string, userId: unknown) => {
    if (typeof userId !== 'string' || userId === '')
      throw new TypeError(`${name}(userId) takes the user id of a session (SessionRecord.userId)`)
  }
  const now = () => Math.floor(Date.now() / 1000)

  /** The user's valid sessions: listed, and signed in after the user's last revocation. */
  async function valid(userId: string) {
    const listed = await requireListing().list(userId, now(), maxLifetime)
    const before = await revocations.before(userId)
    return listed.filter(({ record }) => revocableSince(record) >= before)
  }

  return Object.freeze({
    async listSessions(userId: string) {
      checkUser('listSessions', userId)
      const sessions = await valid(userId)
      return sessions
        .map(({ sid, record, device }) =>
          Object.freeze({
            handle: mac(ring.current, record.handleSid ?? sid),
            signedInAt: record.createdAt,
            renewedAt: record.issuedAt,
            expiresAt: record.expiresAt,
            provider: device?.provider ?? null,
            userAgent: device?.userAgent ?? null,
            address: device?.address ?? null,
          }),
        )
        .sort((a, b) => b.signedInAt - a.signedInAt || b.renewedAt - a.renewedAt)
    },

    async revokeSession(userId: string, handle: string) {
      checkUser('revokeSession', userId)
      const listing = requireListing()
      // A handle is the client's to send: anything but one of ours names no session.
      if (typeof handle !== 'string' || handle.length !== 43) return false
      const found = (await listing.list(userId, now(), maxLifetime)).find(({ sid, record }) =>
        verifyMac(ring, handle, record.handleSid ?? sid),
      )
      if (found === undefined || !(await listing.end(userId, found.sid, found.record))) return false
      revoked(userId, handle, found.record)
      return true
    },
  })
}
