import type { SessionRecord } from '../../infra/config/types'
import { isCanonicalBase64url } from '../../infra/crypto/base64url'
import { digest } from '../../infra/crypto/mac'
import { randomToken } from '../../infra/crypto/random'
import { callStore, type ExpressSessionStore } from '../../infra/store/express-session-store'
import type { SessionIndex } from '../../infra/store/types'
import { isRecord } from '../../infra/util/object'
import { fromClaims, toClaims } from './record'
import { databaseListing, deviceEntries, movedEntries } from './database-listing'
import type { DeviceInfo } from './device-info'
import { sessionHooks, type SessionLifecycle } from './lifecycle'
import type { OpenedRecord, RecordStore } from './record-store'
import { listedInStore, storeCookie } from './store-listing'

/** 32 random bytes, base64url as issued: anything else in the cookie is refused before the store is asked. */
const isToken = (token: string) => token.length === 43 && isCanonicalBase64url(token)

export interface DatabaseStoreParts {
  readonly store: ExpressSessionStore
  readonly index: SessionIndex
  /**
   * Whether the index is shared by every instance (Redis), and so says by itself which sessions are
   * listed. Else (a per-process index cannot vouch for sessions made on other instances) each
   * session is listed beside its record, in the store (./store-listing.ts). Either way a session
   * must be listed to be valid, and only a sign-in lists one.
   */
  readonly indexed: boolean
  /** Runs one store call under the store deadline, logging an outage once (a 503 when it fails). */
  readonly call: <T>(work: () => Promise<T>) => Promise<T>
  readonly maxLifetime: number
  /**
   * The stored records as this process last read them, kept current by the store (Redis
   * client-side caching, lib/infra/store/redis/); `get` answers null when it cannot vouch for
   * them, and the record is read from the store.
   */
  readonly cached?: CachedRecords | null
  /**
   * The features' hooks, for the sessions the listing ends one by one (`revokeSession`, back-channel
   * logout): the manager runs them for every other end (./lifecycle.ts).
   */
  readonly lifecycles?: readonly SessionLifecycle[]
}

export interface CachedRecords {
  get(sid: string): Promise<unknown> | null
  /** Runs `work`, a change of the record by this process: what it read before is dropped around it. */
  changing<T>(sid: string, work: () => Promise<T>): Promise<T>
  /** The stored record held in memory, and its version; undefined when none is (no I/O). */
  held(sid: string): { stored: unknown; version: object } | undefined
  /** Whether the session is listed in its user's index as held in memory (undefined: not held). */
  listed(userId: string, sid: string): boolean | undefined
  /** For later: whether the record held at `version`, and its listing, are still what is held. */
  stillHeld(sid: string, version: object, userId: string): () => boolean
}

/**
 * Strategy `database`: the cookie carries a random token; the store keeps the record under the
 * token's SHA-256, so a dump of the store (or Redis's MONITOR) holds no usable session. Every
 * session is also listed in its user's index, which makes signing a user out everywhere one step.
 *
 * A session is valid only while it is listed. Only a sign-in lists a session, and every end of one
 * (sign-out, sign-out everywhere, a new sign-in in the same browser, the cap per user) unlists it
 * before it deletes the record: a renewal or an update that read the session before its end and
 * writes it after brings back a record nobody can use, which the next read or the writer deletes.
 */
export function databaseStore(parts: DatabaseStoreParts): RecordStore {
  const { store, indexed, call, maxLifetime, cached } = parts
  const index = indexed ? parts.index : listedInStore(store, parts.index, call)
  const get = (sid: string) => cached?.get(sid) ?? call(() => callStore<unknown>((done) => store.get(sid, done)))
  const change = (sid: string, work: () => Promise<unknown>) => (cached ? cached.changing(sid, work) : work())
  const set = (sid: string, value: object) =>
    change(sid, () => call(() => callStore((done) => store.set(sid, value, done))))
  const destroy = (sid: string) => change(sid, () => call(() => callStore((done) => store.destroy(sid, done))))
  const destroyAll = async (sids: readonly string[]) => {
    const results = await Promise.allSettled(sids.map((sid) => destroy(sid)))
    const failed = results.find((result) => result.status === 'rejected')
    if (failed) throw failed.reason
  }
  const devices = deviceEntries(store, call)
  const forwards = movedEntries(store, call)
  const hooks = sessionHooks(parts.lifecycles ?? [])
  const sidOf = (token: string) => (isToken(token) ? digest(token) : null)
  /** Ends listed sessions as sign-out does: unlisted first, then deleted. */
  const end = async (userId: string, sids: readonly string[]) => {
    await index.remove(userId, sids)
    await destroyAll(sids)
    await devices.forget(sids)
  }

  return Object.freeze({
    async read(token: string, nowSeconds: number, lifetime: number): Promise<OpenedRecord | null> {
      if (!isToken(token)) return null
      const sid = digest(token)
      // Anything short of a valid, listed record held in memory takes the full way below.
      const known = indexed && cached ? fromMemory(cached, sid, nowSeconds, lifetime) : null
      if (known) return known
      const stored = await get(sid)
      const record = isRecord(stored) ? fromClaims(stored, nowSeconds, lifetime) : null
      if (!record) return null
      // Read through I/O: nothing tells when it changes, so nothing found about it is reused.
      if (await index.has(record.userId, sid)) return { record, reuse: 'never' }
      // Ended (signed out, or past the per-user cap) and written back by a request that raced it.
      await destroy(sid).catch(() => undefined)
      return null
    },

    async write(record: SessionRecord, previous: string | null, device?: DeviceInfo | null) {
      const token = previous ?? randomToken(32)
      const sid = digest(token)
      // Before the listing: a listed session always has its device entry, unless the store lost it.
      if (previous === null && device) await devices.keep(sid, device, record.createdAt + maxLifetime)
      // `cookie.expires` is where express-session stores take a session's expiry (its TTL in Redis);
      // some (memorystore) read `cookie.maxAge` instead, and without it keep an entry one hour.
      await set(sid, { cookie: storeCookie(record.expiresAt), ...toClaims(record) })
      // A renewal or an update never lists a session. One that ended while this request ran is dead
      // all the same (unlisted), and its record, just written back, is deleted again.
      if (previous !== null && !(await index.has(record.userId, sid).catch(() => true)))
        await destroy(sid).catch(() => undefined)
      if (previous === null) {
        let dropped: string[]
        try {
          dropped = await index.add(record.userId, sid, record.createdAt + maxLifetime)
        } catch (error) {
          // A session that sign-out-everywhere could not find must not exist: undo, then refuse.
          await destroy(sid).catch(() => undefined)
          throw error
        }
        // The user's oldest sessions beyond the cap end (unlisted, they are refused anyway with Redis).
        await destroyAll(dropped).catch(() => undefined)
        await devices.forget(dropped)
      }
      return token
    },

    rekey: rekeying({ devices, forwards, index, set, destroy, destroyAll, maxLifetime }),

    async remove(token: string, record: SessionRecord | null) {
      if (!isToken(token)) return
      const sid = digest(token)
      // Whose it is, when the session did not open (a new sign-in ending the browser's old one, a
      // session revoked or expired): the stored record says, whatever else it holds.
      const userId = record?.userId ?? userIdIn(await get(sid))
      // Unlisted first: a request racing this sign-out may write the record back, never the entry.
      if (userId !== null) await index.remove(userId, [sid])
      await destroy(sid)
      await devices.forget([sid])
    },

    async removeAll(userId: string, nowSeconds: number, keep?: string) {
      const kept = keep !== undefined && isToken(keep) ? digest(keep) : null
      await end(
        userId,
        (await index.members(userId, nowSeconds)).filter((sid) => sid !== kept),
      )
    },

    listing: databaseListing({ index, devices, forwards, get, end, sidOf, hooks }),
  })
}

/** The user id a stored record names (its `sub`), or null. */
function userIdIn(stored: unknown): string | null {
  return isRecord(stored) && typeof stored.sub === 'string' && stored.sub !== '' ? stored.sub : null
}

/**
 * The record, when the store's value and the user's index are both held in memory (no I/O), with
 * the check that they still are: only then may what was found about it be reused.
 */
function fromMemory(cached: CachedRecords, sid: string, nowSeconds: number, lifetime: number): OpenedRecord | null {
  const held = cached.held(sid)
  if (!held || !isRecord(held.stored)) return null
  const record = fromClaims(held.stored, nowSeconds, lifetime)
  if (!record || cached.listed(record.userId, sid) !== true) return null
  return { record, reuse: cached.stillHeld(sid, held.version, record.userId) }
}

/** What `rekey` works with: the store's steps of databaseStore. */
interface RekeyParts {
  readonly devices: ReturnType<typeof deviceEntries>
  readonly forwards: ReturnType<typeof movedEntries>
  readonly index: SessionIndex
  readonly set: (sid: string, value: object) => Promise<unknown>
  readonly destroy: (sid: string) => Promise<unknown>
  readonly destroyAll: (sids: readonly string[]) => Promise<void>
  readonly maxLifetime: number
}

/** `RecordStore.rekey` of the database store (a re-authentication): see there. */
function rekeying({ devices, forwards, index, set, destroy, destroyAll, maxLifetime }: RekeyParts) {
  return async (record: SessionRecord, previous: string) => {
    const from = digest(previous)
    const token = randomToken(32)
    const sid = digest(token)
    const until = record.createdAt + maxLifetime
    const kept: SessionRecord = { ...record, handleSid: record.handleSid ?? from }
    const undo = async () => {
      await index.remove(kept.userId, [sid]).catch(() => undefined)
      await destroy(sid).catch(() => undefined)
      await devices.forget([sid])
    }
    const device = await devices.read(from).catch(() => null)
    if (device) await devices.keep(sid, device, until)
    await set(sid, { cookie: storeCookie(kept.expiresAt), ...toClaims(kept) })
    let dropped: string[] = []
    let claimed: boolean
    try {
      // Whatever names the session by the id it leaves (a provider's back-channel logout) finds it.
      if (from !== kept.handleSid) await forwards.keep(from, kept.handleSid!, until)
      // The old id is this move's alone: one ended meanwhile (revokeSession, a back-channel logout),
      // or taken by the same re-authentication submitted twice, leaves nothing to move. In one step
      // where the index can (never listed nowhere, never trimming the user's other sessions).
      if (index.move) claimed = await index.move(kept.userId, from, sid, until)
      else {
        dropped = await index.add(kept.userId, sid, until)
        claimed = index.claim
          ? await index.claim(kept.userId, from)
          : (await index.has(kept.userId, from)) && (await index.remove(kept.userId, [from]), true)
      }
    } catch (error) {
      await undo()
      throw error
    }
    if (!claimed) {
      await undo()
      return null
    }
    await destroyAll(dropped).catch(() => undefined)
    await devices.forget(dropped)
    // The old token opens nothing any more: its record and device entry go (it is unlisted already).
    await destroy(from).catch(() => undefined)
    await devices.forget([from])
    return { token, record: kept }
  }
}
