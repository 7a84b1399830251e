import type { Redis } from 'ioredis'
import { sizedCache } from '../util/cache'
import { parseJsonObject } from '../util/json'
import type { RedisClient, RedisRunner } from './redis'

/**
 * Reads of a few keys (database sessions and their users' indexes) kept in this process and kept
 * current by Redis itself: server-assisted client-side caching in broadcasting mode. One connection
 * of our own runs `CLIENT TRACKING ON REDIRECT <its own id> BCAST PREFIX <sessions> PREFIX <indexes>`
 * and subscribes to `__redis__:invalidate`: Redis then sends it the name of every key under those
 * prefixes as soon as anyone changes it, before the writer hears back. The reads themselves go over
 * the app's client, as every other command does. Broadcasting keeps nothing per key in Redis, so
 * requests with made-up session tokens cost Redis no memory (the default mode remembers every key
 * each client read, even one that does not exist).
 *
 * Nothing is answered from memory unless tracking was confirmed in the connection's current state
 * and a PING *sent* within the last LIVENESS_MS has come back on it: Redis sends every invalidation
 * for a change made before it handled that PING ahead of the PONG, on the same connection. So a
 * link that slows down switches the cache off rather than delivering invalidations late. Whenever
 * the connection drops, reconnects or goes quiet, the whole cache is dropped and reads go to Redis
 * (through `redis.run`, with its deadline and 503) until tracking is confirmed again.
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
  /** The value held for `key`/`field` now, without I/O; undefined when none is (or tracking is off). */
  held(key: string, field: string): string | null | undefined
  /** What stands for the value of `key` held now (undefined: none), for `unchanged`. */
  version(key: string): object | undefined
  /** Whether the value of `key` held when `version` was taken is still held, and still current. */
  unchanged(key: string, version: object): boolean
}

const CHANNEL = '__redis__:invalidate'
const PING_MS = 1000
const LIVENESS_MS = 2500
/** Keys kept (a session and its user's index are two), and characters in all. */
const MAX_KEYS = 20_000
const MAX_CHARS = 16 * 1024 * 1024
/**
 * How long a value read is held at most, invalidated or not: the ceiling on a change Redis does not
 * announce (`SWAPDB` sends no invalidation; every other change to a key, its expiry, FLUSHDB and
 * FLUSHALL do), like the revocation delay of cookie sessions. A held session is read again this
 * often, which costs next to nothing.
 */
const HOLD_MS = 10_000
/**
 * A connection of ours not confirmed working for this long (a half-open TCP flow, a setup Redis
 * never answered, tracking refused) is closed and made again.
 */
const STUCK_MS = 10_000

/**
 * Tracking of the keys under `prefixes` (as the app's client names them, before its own
 * `keyPrefix`), for a standalone ioredis client; null for a Cluster, whose keys live on many nodes.
 */
export function redisTracking(redis: RedisRunner, prefixes: readonly string[]): TrackedReads | null {
  const main = redis.client
  if (main.isCluster) return null
  // Keys in invalidation messages, and tracking prefixes, are what Redis stores: with the client's keyPrefix.
  const keyPrefix = (main as Redis).options.keyPrefix ?? ''
  // Nothing is sent again on a new connection: a CLIENT TRACKING resent there would name the old
  // connection's id; each new connection sets itself up from 'ready'. It connects, and connects
  // again after a drop, only while the app's client is ready (`tick` below), never by a timer of
  // ioredis's own: an app that never connects its client, or gives up on it (a disconnect() while
  // it reconnects ends it without an 'end'), gets no connection of ours, and no retries that would
  // keep its process alive.
  const listener = (main as Redis).duplicate({
    lazyConnect: true,
    autoResubscribe: false,
    autoResendUnfulfilledCommands: false,
    retryStrategy: () => null,
    // With Sentinel, nor a retry loop of the connector's own, nor subscriber clients of its own.
    sentinelRetryStrategy: () => null,
    failoverDetector: false,
  })
  const values = sizedCache<string, Map<string, string | null>>(
    { entries: MAX_KEYS, maxSize: MAX_CHARS, ttlMs: HOLD_MS },
    (fields, key) => key.length + 100 + [...fields].reduce((n, [f, v]) => n + f.length + (v?.length ?? 0) + 50, 0),
  )
  /** Reads in flight per key, and whether the key changed meanwhile (their answers are then not kept). */
  const inFlight = new Map<string, { count: number; changed: boolean }>()
  /** Bumped whenever the connection changes state: tracking must then be confirmed again. */
  let generation = 0
  /** The generation in which Redis confirmed tracking and the subscription. */
  let trackedIn = -1
  /** When the last PING that has come back was sent (performance.now()). */
  let lastPingBack = -Infinity
  /** When the current generation began. */
  let since = performance.now()

  function drop(key: string) {
    values.delete(key)
    const flight = inFlight.get(key)
    if (flight) flight.changed = true
  }
  function flush() {
    values.clear()
    for (const flight of inFlight.values()) flight.changed = true
  }
  function reset() {
    generation++
    trackedIn = -1
    since = performance.now()
    flush()
  }
  function on(): boolean {
    if (trackedIn !== generation) return false
    if (performance.now() - lastPingBack < LIVENESS_MS) return true
    // Quiet or slow for too long: invalidations may be late or lost.
    flush()
    return false
  }

  async function track() {
    const at = generation
    const sent = performance.now()
    const id = String(await listener.client('ID'))
    const bcast = prefixes.flatMap((prefix) => ['PREFIX', keyPrefix + prefix])
    await listener.call('CLIENT', 'TRACKING', 'ON', 'REDIRECT', id, 'BCAST', ...bcast)
    await listener.subscribe(CHANNEL)
    // A connection that changed meanwhile makes its own call here once it is ready again.
    if (generation !== at) return
    lastPingBack = sent
    trackedIn = at
  }

  listener.on('messageBuffer', (channel: Buffer, keys: Buffer[] | null) => {
    if (channel.toString() !== CHANNEL) return
    // null: the whole database was flushed.
    if (!Array.isArray(keys)) return flush()
    for (const key of keys) drop(key.toString().slice(keyPrefix.length))
  })
  // Refused (Redis before 6, an ACL without CLIENT) or cut off: reads simply go to Redis.
  listener.on('ready', () => {
    reset()
    const at = generation
    // A failure of this connection's setup turns nothing off that a newer connection turned on.
    track().catch(() => {
      if (generation === at) reset()
    })
  })
  for (const event of ['close', 'reconnecting', 'end']) listener.on(event, reset)
  // ioredis reports connection errors as events; the app's own client logs the outage.
  listener.on('error', () => undefined)
  // Our connection never keeps the process alive on its own: the app's client decides that.
  listener.on('connect', () => (listener as unknown as { stream?: { unref?(): void } }).stream?.unref?.())

  // Our connection goes when the app's own client ends: at once, or (for a client that had ended
  // before this was built) at the next tick of the timer below.
  let closed = false
  const close = () => {
    if (closed) return
    closed = true
    clearInterval(pinger)
    reset()
    // disconnect() of an ended client would arm a timer that nothing clears (2 s of keeping a process up).
    if (listener.status !== 'end') listener.disconnect()
  }
  once(main, 'end', close)
  // A connection that went quiet or slow without closing cannot be trusted to deliver invalidations
  // in time: `on` answers false from LIVENESS_MS after the send time of the last PING answered.
  const tick = () => {
    if (closed) return
    if (main.status === 'end') return close()
    const idle = listener.status === 'wait' || listener.status === 'end'
    if (main.status !== 'ready') {
      // Ours lives only while the app's client is up: one the app disconnect()s while it reconnects
      // never ends (no 'end'), and ours would stay connected, pinging, for as long as the process runs.
      if (!idle) listener.disconnect()
      return once(main, 'ready', tick)
    }
    if (idle) return void listener.connect().catch(() => undefined)
    if (performance.now() - Math.max(lastPingBack, since) > STUCK_MS) return listener.disconnect()
    if (trackedIn !== generation) return
    const at = generation
    const sent = performance.now()
    listener.ping().then(
      () => {
        if (generation === at) lastPingBack = Math.max(lastPingBack, sent)
      },
      () => undefined,
    )
  }
  const pinger = setInterval(tick, PING_MS)
  pinger.unref()
  // Now if the app's client is ready, else as soon as it is.
  tick()

  return Object.freeze({
    read<T extends string | null>(key: string, field: string, command: (client: RedisClient) => Promise<T>) {
      if (!on()) return null
      const known = values.get(key)?.get(field)
      if (known !== undefined) return Promise.resolve(known as T)
      const at = generation
      const flight = inFlight.get(key) ?? { count: 0, changed: false }
      flight.count++
      inFlight.set(key, flight)
      const settle = () => {
        if (--flight.count === 0) inFlight.delete(key)
      }
      return redis.run(command).then(
        (value) => {
          if (!flight.changed && at === generation && on()) {
            const held = values.get(key)
            const fields = held ?? new Map<string, string | null>()
            fields.set(field, value)
            // A key's time is counted from its first read: a field added later does not extend it.
            values.set(key, fields, { noUpdateTTL: held !== undefined })
          }
          settle()
          return value
        },
        (error: unknown) => {
          settle()
          throw error
        },
      )
    },
    async changing<T>(key: string, work: () => Promise<T>) {
      drop(key)
      try {
        return await work()
      } finally {
        drop(key)
      }
    },
    // A key's fields live in one Map from its first read until it is dropped: the Map is its version.
    held: (key: string, field: string) => (on() ? values.get(key)?.get(field) : undefined),
    version: (key: string) => (on() ? values.get(key) : undefined),
    unchanged: (key: string, version: object) => on() && values.get(key) === version,
  })
}

/**
 * Callbacks waiting for a client's next 'ready' or 'end': one listener of ours per client and event,
 * however many auth() share the client (a listener each would trip Node's warning at 11).
 */
const waiting = new WeakMap<RedisClient, Map<'ready' | 'end', Set<() => void>>>()

function once(client: RedisClient, event: 'ready' | 'end', callback: () => void): void {
  const events = waiting.get(client) ?? new Map<'ready' | 'end', Set<() => void>>()
  waiting.set(client, events)
  let callbacks = events.get(event)
  if (!callbacks) {
    const these = new Set<() => void>()
    callbacks = these
    events.set(event, these)
    client.once(event, () => {
      events.delete(event)
      for (const callback of these) callback()
    })
  }
  callbacks.add(callback)
}

/**
 * The express-session records under `prefix` (what connect-redis keeps at `prefix + sid`), read the
 * way lib/store/redis-session-store.ts reads them (JSON, a value that does not parse being no
 * session), through tracked reads; `indexKey` names a user's index (lib/store/redis-state.ts).
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
      const score = tracked.held(indexKey(userId), sid)
      return score === undefined ? undefined : score !== null
    },
    /** For later: whether the record held at `version`, and its listing, are still what is held. */
    stillHeld(sid: string, version: object, userId: string): () => boolean {
      const key = prefix + sid
      const index = indexKey(userId)
      return () => tracked.unchanged(key, version) && typeof tracked.held(index, sid) === 'string'
    },
  })
}
