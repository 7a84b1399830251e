import type { Redis } from 'ioredis'
import type { RedisClient, RedisRunner } from '../redis'
import { heldValues, type HeldValues, type TrackedReads } from './held'
import { liveness, type Liveness } from './liveness'

export type { TrackedReads } from './held'

/**
 * Reads of a few kinds of keys kept in this process and kept current by Redis itself (the prefixes
 * lib/auth.ts gives: database sessions in Redis's own store, their users' indexes and their provider
 * tokens; users' revocation times): server-assisted client-side caching in broadcasting mode. One
 * connection of our own runs `CLIENT TRACKING ON REDIRECT <its own id> BCAST PREFIX <prefix> …`, one
 * PREFIX each, and subscribes to `__redis__:invalidate`: Redis then sends it the name of every key
 * under those prefixes as soon as anyone changes it, before the writer hears back. The reads
 * themselves go over the app's client, as every other command does. Broadcasting keeps nothing per
 * key in Redis, so requests with made-up session tokens cost Redis no memory (the default mode
 * remembers every key each client read, even one that does not exist).
 *
 * Nothing is answered from memory unless tracking was confirmed in the connection's current state
 * and a PING has come back on it recently enough (./liveness.ts: 50 ms of waiting, 250 ms in all), nor held longer than 10 s
 * (./held.ts). Whenever the connection drops, reconnects or is replaced, everything held is dropped
 * and reads go to Redis (through `redis.run`, with its deadline and 503) until tracking is confirmed
 * again.
 */

const CHANNEL = '__redis__:invalidate'
/** With no reads, a PING this often still finds a connection that went silent. */
const KEEPALIVE_MS = 1000
/** Our connection's protocol (ioredis 6's option; ioredis 5 speaks RESP2 only). */
const RESP2 = { protocol: 2 }

/** How a connection of ours is made from the app's (a duplicate): connected and retried by us alone. */
export const LISTENER_OPTIONS = {
  lazyConnect: true,
  autoResubscribe: false,
  autoResendUnfulfilledCommands: false,
  retryStrategy: () => null,
  // With Sentinel, nor a retry loop of the connector's own, nor subscriber clients of its own.
  sentinelRetryStrategy: () => null,
  failoverDetector: false,
  // ioredis 6 speaks RESP3 by default, where invalidations arrive as pushes it never emits; RESP2
  // gets them as messages on CHANNEL, as ioredis 5 does. (Spread: 5's option types lack `protocol`.)
  ...RESP2,
}

/**
 * Tracking of the keys under `prefixes` (as the app's client names them, before its own
 * `keyPrefix`), for a standalone ioredis client; null for a Cluster, whose keys live on many nodes.
 * `now` is the monotonic clock in ms that freshness and the hold are measured by, `idle` the event
 * loop's idle time in ms (./liveness.ts; libuv's when not given).
 */
export function redisTracking(
  redis: RedisRunner,
  prefixes: readonly string[],
  now: () => number = () => performance.now(),
  idle?: () => number,
): TrackedReads | null {
  const main = redis.client
  if (main.isCluster) return null
  // Nothing is sent again on a new connection: a CLIENT TRACKING resent there would name the old
  // connection's id; each new connection sets itself up from 'ready'. It connects, and connects
  // again after a drop, only while the app's client is ready (`tick` below), never by a timer of
  // ioredis's own: an app that never connects its client, or gives up on it (a disconnect() while
  // it reconnects ends it without an 'end'), gets no connection of ours, and no retries that would
  // keep its process alive.
  const listener = (main as Redis).duplicate(LISTENER_OPTIONS)
  const live = liveness(() => listener.ping(), now, idle)
  const held = heldValues(redis, live, now)
  const reset = listen(listener, (main as Redis).options.keyPrefix ?? '', prefixes, { live, held, now })
  keepConnected(main, listener, live, reset)
  return held.reads
}

/**
 * Sets the connection up each time it is ready, and applies what it receives. Keys in invalidation
 * messages, and tracking prefixes, are what Redis stores: with the client's `keyPrefix`. Returns
 * `reset`, which forgets the connection's state and everything held.
 */
export function listen(
  listener: Redis,
  keyPrefix: string,
  prefixes: readonly string[],
  { live, held, now }: { live: Liveness; held: HeldValues; now: () => number },
) {
  /** Bumped whenever the connection changes state: tracking must then be confirmed again. */
  let generation = 0
  function reset() {
    generation++
    live.reset()
    held.flush()
  }
  async function track(at: number) {
    const sent = now()
    const id = String(await listener.client('ID'))
    const bcast = prefixes.flatMap((prefix) => ['PREFIX', keyPrefix + prefix])
    await listener.call('CLIENT', 'TRACKING', 'ON', 'REDIRECT', id, 'BCAST', ...bcast)
    await listener.subscribe(CHANNEL)
    // A connection that changed meanwhile makes its own call here once it is ready again.
    if (generation === at) live.confirm(sent)
  }

  listener.on('messageBuffer', (channel: Buffer, keys: Buffer[] | null) => {
    if (channel.toString() !== CHANNEL) return
    // null: the whole database was flushed.
    if (!Array.isArray(keys)) return held.flush()
    for (const key of keys) held.drop(key.toString().slice(keyPrefix.length))
  })
  // Refused (Redis before 6, an ACL without CLIENT) or cut off: reads simply go to Redis.
  listener.on('ready', () => {
    reset()
    const at = generation
    // A failure of this connection's setup turns nothing off that a newer connection turned on.
    track(at).catch(() => {
      if (generation === at) reset()
    })
  })
  for (const event of ['close', 'reconnecting', 'end']) listener.on(event, reset)
  // ioredis reports connection errors as events; the app's own client logs the outage.
  listener.on('error', () => undefined)
  // Our connection never keeps the process alive on its own: the app's client decides that.
  listener.on('connect', () => (listener as unknown as { stream?: { unref?(): void } }).stream?.unref?.())
  return reset
}

/**
 * Keeps our connection up while the app's client is ready, pings it once a second, replaces it when
 * it is stuck, and closes it when the app's own client ends: at once, or (for a client that had
 * ended before this was built) at the next tick.
 */
function keepConnected(main: RedisClient, listener: Redis, live: Liveness, reset: () => void) {
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
    if (live.stuck()) return listener.disconnect()
    live.ping()
  }
  const pinger = setInterval(tick, KEEPALIVE_MS)
  pinger.unref()
  // Now if the app's client is ready, else as soon as it is.
  tick()
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
