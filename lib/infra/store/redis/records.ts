import { parseJsonObject } from '../../util/json'
import type { TrackedReads } from './held'

/**
 * The express-session records under `prefix` (what connect-redis keeps at `prefix + sid`), read the
 * way lib/infra/store/connect-redis.ts reads them (JSON, a value that does not parse being no
 * session), through tracked reads; `indexKey` names a user's index (lib/infra/store/redis-state.ts).
 */
export function trackedRecords(tracked: TrackedReads, prefix: string, indexKey: (userId: string) => string) {
  return Object.freeze({
    /** The stored record, read through the tracked cache; null when tracking is off (read through the store). */
    get(sid: string): Promise<unknown> | null {
      const key = prefix + sid
      const text = tracked.read(key, '', (client) => client.get(key))
      return text && text.then((stored) => (stored ? parseJsonObject(stored) : undefined))
    },
    changing: <T>(sid: string, work: () => Promise<T>) => tracked.changing(prefix + sid, work),
    /** The stored record held in memory, and its version; undefined when none is held (no I/O). */
    held(sid: string): { stored: unknown; version: object } | undefined {
      const key = prefix + sid
      const version = tracked.version(key)
      const text = version && tracked.held(key, '')
      if (version === undefined || text === undefined) return undefined
      return { stored: text ? parseJsonObject(text) : undefined, version }
    },
    /** Whether the session is listed in its user's index as held in memory; undefined when not held. */
    listed(userId: string, sid: string): boolean | undefined {
      // Only members Redis has are held: a session not listed is never known from memory.
      return tracked.held(indexKey(userId), sid) === undefined ? undefined : true
    },
    /** For later: whether the record held at `version`, and its listing, are still what is held. */
    stillHeld(sid: string, version: object, userId: string): () => boolean {
      const key = prefix + sid
      const index = indexKey(userId)
      return () => tracked.unchanged(key, version) && typeof tracked.held(index, sid) === 'string'
    },
  })
}
