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
 * Where a re-authenticated database session went, under `moved.{sid}` of its old id: the new id,
 * expiring when the session can no longer live. Whatever names the session by an id it had (a
 * provider's back-channel logout, kept at sign-in) still finds it through these.
 */
export function movedEntries(store: ExpressSessionStore, call: Call) {
  const keyOf = (sid: string) => `moved.${sid}`
  return Object.freeze({
    async keep(from: string, to: string, untilSeconds: number) {
      const entry = { cookie: storeCookie(untilSeconds), to }
      await call(() => callStore((done) => store.set(keyOf(from), entry, done)))
    },
    async next(sid: string): Promise<string | null> {
      const entry = await call(() => callStore<unknown>((done) => store.get(keyOf(sid), done)))
      return isRecord(entry) && typeof entry.to === 'string' && entry.to !== '' ? entry.to : null
    },
  })
}

/** How many re-authentications in a row a session's old id is followed through. */
const MAX_MOVES = 8

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
  /** The id a session named by `sid` has now (moved by re-authentications), when it is listed; else null. */
  async function current(userId: string, sid: string, now: number): Promise<string | null> {
    const members = await index.members(userId, now)
    let at: string | null = sid
    for (let moves = 0; at !== null && moves <= MAX_MOVES; moves++) {
      if (members.includes(at)) return at
      at = await forwards.next(at)
    }
    return null
  }
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
      const sid = await current(userId, named, now)
      if (sid === null) return false
      const record = sid === named ? given : undefined
      // What it held, for the hooks: read only when one of them wants it and the caller did not say.
      const held = record ?? (hooks.endsSessions ? recordOf(await get(sid), userId, now, Infinity) : null)
      await end(userId, [sid])
      if (held !== null) await hooks.sessionEnded(held)
      return true
    },
  })
}
