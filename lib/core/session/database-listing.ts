import type { SessionRecord } from '../../infra/config/types'
import { callStore, type ExpressSessionStore } from '../../infra/store/express-session-store'
import type { SessionIndex } from '../../infra/store/types'
import { isRecord } from '../../infra/util/object'
import { storedDevice, type DeviceInfo } from './device-info'
import type { SessionHooks } from './lifecycle'
import { fromClaims } from './record'
import type { ListedSession, SessionListing } from './record-store'
import { storeCookie } from './store-listing'

type Call = <T>(work: () => Promise<T>) => Promise<T>

/**
 * Where each database session signed in from, beside its record under `device.{sid}` (no session id
 * has a '.', like `listed.{sid}`): written once at sign-in, before the session is listed, expiring
 * when the session can no longer live, and deleted with the session. It holds nothing that opens a
 * session, and is read only for a session its user's index lists.
 */
export function deviceEntries(store: ExpressSessionStore, call: Call) {
  const keyOf = (sid: string) => `device.${sid}`
  return Object.freeze({
    async keep(sid: string, device: DeviceInfo, untilSeconds: number) {
      const entry = { cookie: storeCookie(untilSeconds), ...device }
      await call(() => callStore((done) => store.set(keyOf(sid), entry, done)))
    },
    async read(sid: string): Promise<DeviceInfo | null> {
      return storedDevice(await call(() => callStore<unknown>((done) => store.get(keyOf(sid), done))))
    },
    /** Best effort: an entry left behind expires, and is never read for a session that is not listed. */
    async forget(sids: readonly string[]) {
      await Promise.allSettled(sids.map((sid) => call(() => callStore((done) => store.destroy(keyOf(sid), done)))))
    },
  })
}

/**
 * The id a re-authenticated database session signed in with (its handle's, `handleSid`), under
 * `moved.{old id}` of every id it had since, expiring when the session can no longer live: whatever
 * names the session by one of those ids (a provider's back-channel logout, kept at sign-in) finds
 * it again, in one read however often it moved.
 */
export function movedEntries(store: ExpressSessionStore, call: Call) {
  const keyOf = (sid: string) => `moved.${sid}`
  return Object.freeze({
    async keep(from: string, handleSid: string, untilSeconds: number) {
      const entry = { cookie: storeCookie(untilSeconds), to: handleSid }
      await call(() => callStore((done) => store.set(keyOf(from), entry, done)))
    },
    /** The id the session that had `sid` signed in with: `sid` itself when it never moved. */
    async origin(sid: string): Promise<string> {
      const entry = await call(() => callStore<unknown>((done) => store.get(keyOf(sid), done)))
      return isRecord(entry) && typeof entry.to === 'string' && entry.to !== '' ? entry.to : sid
    },
  })
}

export interface ListingParts {
  readonly index: SessionIndex
  readonly devices: ReturnType<typeof deviceEntries>
  readonly forwards: ReturnType<typeof movedEntries>
  /** The stored value of a session id (the store's, or the one held in memory). */
  readonly get: (sid: string) => Promise<unknown>
  /** Ends listed sessions as sign-out does: unlisted first, then deleted. */
  readonly end: (userId: string, sids: readonly string[]) => Promise<void>
  /** The store's id of a token, null for anything that is not a token of ours. */
  readonly sidOf: (token: string) => string | null
  /** The features' hooks: `sessionEnded` runs for every session this listing ends (./lifecycle.ts). */
  readonly hooks: SessionHooks
}

/** The user's valid record in a stored value, or null (the index names its user's sessions only). */
function recordOf(stored: unknown, userId: string, nowSeconds: number, lifetime: number): SessionRecord | null {
  const record = isRecord(stored) ? fromClaims(stored, nowSeconds, lifetime) : null
  return record && record.userId === userId ? record : null
}

/**
 * A user's database sessions one by one: `listSessions` and `revokeSession` (./devices.ts), and a
 * provider's back-channel logout of one session. The one way to end a session outside the manager,
 * so it runs the lifecycle's `sessionEnded` itself.
 */
export function databaseListing({ index, devices, forwards, get, end, sidOf, hooks }: ListingParts): SessionListing {
  return Object.freeze({
    sidOf,
    async list(userId: string, nowSeconds: number, lifetime: number) {
      const sids = await index.members(userId, nowSeconds)
      const listed = await Promise.all(
        sids.map(async (sid): Promise<ListedSession | null> => {
          const [stored, device] = await Promise.all([get(sid), devices.read(sid)])
          const record = recordOf(stored, userId, nowSeconds, lifetime)
          return record && { sid, record, device }
        }),
      )
      return listed.filter((session): session is ListedSession => session !== null)
    },
    async end(userId: string, named: string, given?: SessionRecord) {
      const now = Math.floor(Date.now() / 1000)
      const members = await index.members(userId, now)
      // The session `named` was, or is now under another id (moved by re-authentications): every
      // listed session made by that sign-in, which is one but for a re-authentication submitted twice.
      const origin = await forwards.origin(named)
      const sessions = await Promise.all(
        members.map(async (sid) => {
          const record = sid === named && given ? given : recordOf(await get(sid), userId, now, Infinity)
          return { sid, record }
        }),
      )
      const ending = sessions.filter(({ sid, record }) => sid === named || (record?.handleSid ?? sid) === origin)
      if (ending.length === 0) return false
      await end(
        userId,
        ending.map(({ sid }) => sid),
      )
      for (const { sid, record } of ending) if (record !== null) await hooks.sessionEnded(record, sid)
      return true
    },
  })
}
