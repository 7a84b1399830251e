import { sizedCache } from '../../util/cache'
import type { RedisClient, RedisRunner } from '../redis'
import type { Liveness } from './liveness'

/**
 * The values this process read of tracked keys, held in memory. A value is kept only when Redis
 * holds one: an answer of "nothing there" (a made-up session token) is never kept, so requests with
 * random tokens cannot push a real session out. A value is answered from memory only while the
 * tracking connection is fresh (./liveness.ts), and never longer than HOLD_MS after it was read.
 */
export interface TrackedReads {
  /**
   * The value `command` reads for `key` (one `field` of it: a sorted set's member), from memory when
   * it is known current; null when tracking is not on, and the caller reads the usual way.
   */
  read<T extends string | null>(
    key: string,
    field: string,
    command: (client: RedisClient) => Promise<T>,
  ): Promise<T> | null
  /**
   * Runs `work`, a change this process makes to `key`: what it held of the key is dropped before and
   * after, so its own next read sees the change (read-your-writes on this instance).
   */
  changing<T>(key: string, work: () => Promise<T>): Promise<T>
  /**
   * Calls `listener` with each key Redis announces as changed, and each this process changes (not
   * on a flush or a new connection): for copies kept elsewhere, such as the revocation delay's.
   */
  onDrop(listener: (key: string) => void): void
  /** The value held for `key`/`field` now, without I/O; undefined when none is (or it is not current). */
  held(key: string, field: string): string | undefined
  /** What stands for the value of `key` held now (undefined: none), for `unchanged`. */
  version(key: string): object | undefined
  /** Whether the value of `key` held when `version` was taken is still held, and still current. */
  unchanged(key: string, version: object): boolean
  /** What telemetry's gauges read (lib/core/session/telemetry.ts). */
  readonly stats: TrackingStats
}

/**
 * Keys held now; look-ups of a value (`read`, `held`) and those answered from memory since the
 * counts were last read and reset, plain integers bumped in place; whether tracking is confirmed on
 * the connection (on every master's, for a Cluster).
 */
export interface TrackingStats {
  readonly size: number
  readonly counts: { lookups: number; hits: number }
  up(): boolean
}

/** Keys kept (a session and its user's index are two), and characters in all. */
const MAX_KEYS = 20_000
const MAX_CHARS = 16 * 1024 * 1024
/**
 * How long a value read is held at most, invalidated or not: the ceiling on a change Redis does not
 * announce (`SWAPDB` sends no invalidation; every other change to a key, its expiry, FLUSHDB and
 * FLUSHALL do), like the revocation delay of cookie sessions. A held session is read again this
 * often, which costs next to nothing.
 */
export const HOLD_MS = 10_000

/** A key's fields, from its first read until it is dropped or HOLD_MS have passed: the entry is its version. */
interface Entry {
  readonly fields: Map<string, string>
  readonly readAt: number
}

export interface HeldValues {
  readonly reads: TrackedReads
  /** Forgets `key` (an invalidation): reads of it in flight are not kept either. */
  drop(key: string): void
  /** Forgets everything (a flush, or a connection that changed). */
  flush(): void
}

export function heldValues(
  redis: RedisRunner,
  live: Pick<Liveness, 'tracked' | 'fresh' | 'freshSoon'>,
  now: () => number,
): HeldValues {
  const values = sizedCache<string, Entry>(
    { entries: MAX_KEYS, maxSize: MAX_CHARS },
    (entry, key) => key.length + 100 + [...entry.fields].reduce((n, [f, v]) => n + f.length + v.length + 50, 0),
  )
  /** Reads in flight per key, and whether the key changed meanwhile (their answers are then not kept). */
  const inFlight = new Map<string, { count: number; changed: boolean }>()

  /** The key's entry, if it was read less than HOLD_MS ago. */
  function entry(key: string): Entry | undefined {
    const found = values.get(key)
    if (found && now() - found.readAt < HOLD_MS) return found
    if (found) values.delete(key)
    return undefined
  }
  function keep(key: string, field: string, value: string) {
    const found = entry(key) ?? { fields: new Map<string, string>(), readAt: now() }
    found.fields.set(field, value)
    values.set(key, found) // again, so that its size is counted again
  }
  const dropListeners: Array<(key: string) => void> = []
  function drop(key: string) {
    for (const listener of dropListeners) listener(key)
    values.delete(key)
    const flight = inFlight.get(key)
    if (flight) flight.changed = true
  }
  function flush() {
    values.clear()
    for (const flight of inFlight.values()) flight.changed = true
  }

  const readThrough = readingThrough(redis, live, inFlight, keep)

  const counts = { lookups: 0, hits: 0 }
  /** A value answered from memory, counted. */
  const hit = <T>(value: T) => {
    counts.hits++
    return value
  }
  const reads: TrackedReads = Object.freeze({
    read<T extends string | null>(key: string, field: string, command: (client: RedisClient) => Promise<T>) {
      if (!live.tracked()) return null
      counts.lookups++
      const heldNow = () => entry(key)?.fields.get(field) as T | undefined
      if (heldNow() === undefined) return readThrough(key, field, command)
      if (live.fresh()) return Promise.resolve(hit(heldNow()!))
      // Held but not known current: current once a PING sent now is back in time (and still held then).
      return live.freshSoon().then((fresh) => {
        const value = fresh ? heldNow() : undefined
        return value === undefined ? readThrough(key, field, command) : hit(value)
      })
    },
    async changing<T>(key: string, work: () => Promise<T>) {
      drop(key)
      try {
        return await work()
      } finally {
        drop(key)
      }
    },
    onDrop: (listener: (key: string) => void) => void dropListeners.push(listener),
    held(key: string, field: string) {
      counts.lookups++
      const value = live.fresh() ? entry(key)?.fields.get(field) : undefined
      if (value !== undefined) counts.hits++
      return value
    },
    version: (key: string) => (live.fresh() ? entry(key) : undefined),
    unchanged: (key: string, version: object) => live.fresh() && entry(key) === version,
    stats: Object.freeze({
      get size() {
        return values.size
      },
      counts,
      up: () => live.tracked(),
    }),
  })
  return Object.freeze({ reads, drop, flush })
}

/** Reads of a key from Redis, each value kept (`keep`) unless the key changed meanwhile (`inFlight`). */
function readingThrough(
  redis: RedisRunner,
  live: Pick<Liveness, 'tracked'>,
  inFlight: Map<string, { count: number; changed: boolean }>,
  keep: (key: string, field: string, value: string) => void,
) {
  return function readThrough<T extends string | null>(
    key: string,
    field: string,
    command: (client: RedisClient) => Promise<T>,
  ) {
    const flight = inFlight.get(key) ?? { count: 0, changed: false }
    flight.count++
    inFlight.set(key, flight)
    const settle = () => {
      if (--flight.count === 0) inFlight.delete(key)
    }
    return redis.run(command).then(
      (value) => {
        // Kept even while the connection is not fresh: an invalidation of any later change still comes on it.
        if (value !== null && !flight.changed && live.tracked()) keep(key, field, value)
        settle()
        return value
      },
      (error: unknown) => {
        settle()
        throw error
      },
    )
  }
}
