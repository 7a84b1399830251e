import type { Redis } from 'ioredis'
import { digest } from '../../infra/crypto/mac'
import { randomToken } from '../../infra/crypto/random'
import type { RedisClient, RedisRunner } from '../../infra/store/redis'
import type { TrackedReads } from '../../infra/store/redis/held'
import { parseJsonObject } from '../../infra/util/json'

/**
 * The provider's tokens of every session, in Redis, shared by every instance. Per session (its
 * reference `ref`, random, kept in the session record):
 * - `tok:{ref}`, a hash: `v` the sealed set (./token-set.ts), `fp` its fingerprint (which set it is,
 *   for the compare-and-write), `err` once a refresh failed for good; it expires with the session;
 * - `tok:{ref}:lock`, the refresh lock (SET NX PX): one instance refreshes, with a deadline;
 * and per user, `toku:<sha-256 of the user id>`, a sorted set of the user's refs (score: the second
 * they end), so that signing a user out everywhere finds them. The braces keep a session's two keys
 * in one slot of a Cluster. A change is published on one channel (`<prefix>tok`, the ref as the
 * message): the instances waiting for a refresh wake up without asking Redis again and again.
 */
export interface StoredTokens {
  /** The sealed set. */
  readonly sealed: string
  readonly fp: string
  /** A refresh failed for good: the grant is gone. */
  readonly failed: boolean
}

export interface Watch {
  wait(ms: number): Promise<void>
  stop(): void
}

export interface TokenVault {
  /** A new set, kept until `untilSeconds` (the session's expiry), listed for its user until `listedUntil`. */
  keep(userId: string, sealed: string, fp: string, untilSeconds: number, listedUntil?: number): Promise<string>
  /**
   * The stored set. From this process's memory when Redis's client-side caching vouches for it
   * (lib/infra/store/redis/tracking.ts); `fresh`: from Redis itself (what the refresh decides on).
   */
  read(ref: string, fresh?: boolean): Promise<StoredTokens | null>
  /** Takes the refresh lock for `ms`: the owner's id, or null when another holds it. */
  lock(ref: string, ms: number): Promise<string | null>
  /** Milliseconds the lock has left (0: none), and whether it stands for a refresh that just failed. */
  lockState(ref: string): Promise<{ left: number; failed: boolean; uncertain: boolean }>
  /**
   * After a failure for now (the provider did not answer usably): the lock (if still `owner`'s)
   * stays taken for `ms` as a mark of it, and the others are told; they fail at once instead of
   * asking the provider again one after the other.
   */
  failForNow(ref: string, owner: string, ms: number, mark?: 'failed' | 'uncertain'): Promise<void>
  /** Moves the lock's end to `ms` from now, if it is still `owner`'s: whether it was. */
  renew(ref: string, owner: string, ms: number): Promise<boolean>
  /** Writes the new set only over `fromFp`; releases the lock (if still `owner`'s) and tells the others. */
  replace(ref: string, fromFp: string, sealed: string, fp: string, owner: string): Promise<boolean>
  /** Marks the set `fromFp` as failed for good; releases the lock and tells the others. */
  fail(ref: string, fromFp: string, owner: string): Promise<boolean>
  release(ref: string, owner: string): Promise<void>
  /**
   * Starts watching `ref` now (before the caller looks at the lock, so that no change is missed in
   * between); `wait(ms)` resolves when it changes or `ms` have passed. `listen()` must have resolved.
   */
  watch(ref: string): Watch
  /** Starts listening for changes: resolves once subscribed, or once that failed (waits then run to their deadline). */
  listen(): Promise<void>
  /** How many refs have waits on them now: none once every wait has stopped (what a spec counts). */
  watching(): number
  touch(ref: string, untilSeconds: number): Promise<void>
  forget(ref: string): Promise<void>
  forgetUser(userId: string, keep: string | null): Promise<void>
}

const REPLACE = `if redis.call('HGET', KEYS[1], 'fp') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'fp', ARGV[3])
if redis.call('GET', KEYS[2]) == ARGV[4] then redis.call('DEL', KEYS[2]) end
redis.call('PUBLISH', ARGV[5], ARGV[6])
return 1`

const FAIL = `if redis.call('HGET', KEYS[1], 'fp') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'err', '1')
if redis.call('GET', KEYS[2]) == ARGV[2] then redis.call('DEL', KEYS[2]) end
redis.call('PUBLISH', ARGV[3], ARGV[4])
return 1`

const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
redis.call('PUBLISH', ARGV[2], ARGV[3])
return 1`

const FAIL_FOR_NOW = `if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('SET', KEYS[1], ARGV[5], 'PX', ARGV[2]) end
redis.call('PUBLISH', ARGV[3], ARGV[4])
return 1`

const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`

const LOCK_STATE = `return { redis.call('GET', KEYS[1]) or '', redis.call('PTTL', KEYS[1]) }`

const KEEP = `redis.call('HSET', KEYS[1], 'v', ARGV[1], 'fp', ARGV[2])
redis.call('EXPIREAT', KEYS[1], ARGV[3])
return 1`

const INDEX = `redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
local newest = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
redis.call('EXPIREAT', KEYS[1], newest[2])
return 1`

/** LOCK_STATE's answer: the lock's value (an owner's id, or a mark after a failure) and its PTTL. */
function lockStateOf(state: unknown): { left: number; failed: boolean; uncertain: boolean } {
  const [value, left] = Array.isArray(state) ? (state as unknown[]) : []
  const uncertain = value === 'uncertain'
  return { left: typeof left === 'number' ? Math.max(0, left) : 0, failed: value === 'failed' || uncertain, uncertain }
}

/** A ref as we issue them (random, base64url): anything else in a record is never sent to Redis. */
const isRef = (ref: string) => /^[\w-]{22}$/.test(ref)

/** `tracked`: reads of the sets held in memory while Redis tracks their keys (database sessions in Redis). */
export function redisVault(redis: RedisRunner, tracked: TrackedReads | null = null): TokenVault {
  /** A change of `key` by this process: what it held of it is dropped around it. */
  const change = <T>(key: string, work: () => Promise<T>) => (tracked ? tracked.changing(key, work) : work())
  const hash = (ref: string) => redis.key('tok', `{${ref}}`)
  const lockKey = (ref: string) => redis.key('tok', `{${ref}}`, 'lock')
  const userKey = (userId: string) => redis.key('toku', digest(userId))
  const channel = redis.key('tok')
  const waits = changeListener(redis, channel)
  const now = () => Math.floor(Date.now() / 1000)

  return Object.freeze({
    async keep(userId: string, sealed: string, fp: string, untilSeconds: number, listedUntil = untilSeconds) {
      const ref = randomToken(16)
      await redis.run((client) => client.eval(KEEP, 1, hash(ref), sealed, fp, untilSeconds))
      await redis.run((client) => client.eval(INDEX, 1, userKey(userId), now(), listedUntil, ref))
      return ref
    },
    async read(ref: string, fresh = false) {
      if (!isRef(ref)) return null
      const key = hash(ref)
      // As one string, the form in which tracked reads are held (null: nothing there, never held).
      const command = (client: RedisClient) =>
        client.hgetall(key).then((stored) => (stored.v === undefined ? null : JSON.stringify(stored)))
      const text = await ((fresh ? null : tracked?.read(key, '', command)) ?? redis.run(command))
      const stored = text === null ? null : parseJsonObject(text)
      const { v, fp, err } = stored ?? {}
      if (typeof v !== 'string' || typeof fp !== 'string') return null
      return { sealed: v, fp, failed: err === '1' }
    },
    async lock(ref: string, ms: number) {
      const owner = randomToken(16)
      const taken = await redis.run((client) => client.set(lockKey(ref), owner, 'PX', ms, 'NX'))
      return taken === 'OK' ? owner : null
    },
    async lockState(ref: string) {
      return lockStateOf(await redis.run((client) => client.eval(LOCK_STATE, 1, lockKey(ref))))
    },
    async failForNow(ref: string, owner: string, ms: number, mark: 'failed' | 'uncertain' = 'failed') {
      await redis.run((client) => client.eval(FAIL_FOR_NOW, 1, lockKey(ref), owner, ms, channel, ref, mark))
    },
    async renew(ref: string, owner: string, ms: number) {
      return (await redis.run((client) => client.eval(RENEW, 1, lockKey(ref), owner, ms))) === 1
    },
    async replace(ref: string, fromFp: string, sealed: string, fp: string, owner: string) {
      const done = await change(hash(ref), () =>
        redis.run((client) =>
          client.eval(REPLACE, 2, hash(ref), lockKey(ref), fromFp, sealed, fp, owner, channel, ref),
        ),
      )
      return done === 1
    },
    async fail(ref: string, fromFp: string, owner: string) {
      const done = await redis.run((client) =>
        client.eval(FAIL, 2, hash(ref), lockKey(ref), fromFp, owner, channel, ref),
      )
      return done === 1
    },
    async release(ref: string, owner: string) {
      await redis.run((client) => client.eval(RELEASE, 1, lockKey(ref), owner, channel, ref))
    },
    watch: waits.watch,
    listen: waits.listen,
    watching: waits.watching,
    async touch(ref: string, untilSeconds: number) {
      if (isRef(ref)) await redis.run((client) => client.expireat(hash(ref), untilSeconds))
    },
    async forget(ref: string) {
      if (isRef(ref)) await redis.run((client) => client.del(hash(ref), lockKey(ref)))
    },
    async forgetUser(userId: string, keep: string | null) {
      const key = userKey(userId)
      const refs = await redis.run((client) => client.zrange(key, 0, -1))
      const gone = refs.filter((ref) => ref !== keep && isRef(ref))
      // One key per command: a Cluster keeps them on different nodes.
      await Promise.all(gone.map((ref) => redis.run((client) => client.del(hash(ref)))))
      if (gone.length > 0) await redis.run((client) => client.zrem(key, ...gone))
    },
  })
}

/**
 * One subscriber connection of ours (made on first use), and the waits on it by ref. A wait that
 * hears nothing ends at its own deadline (the lock's), so a lost connection only slows waiters down.
 */
function changeListener(redis: RedisRunner, channel: string) {
  const waiting = new Map<string, Set<() => void>>()
  let subscribed: Promise<void> | null = null
  let current: Redis | null = null
  let watchingEnd = false

  function listen(): Promise<void> {
    subscribed ??= subscribe()
    return subscribed
  }

  /**
   * A connection that ends (Redis gone, the app's client ended) is not retried by ioredis: the next
   * wait makes a new one, so nothing of ours keeps reconnecting, nor keeps the process alive.
   */
  function subscribe(): Promise<void> {
    const subscriber = (redis.client as Redis).duplicate({
      lazyConnect: true,
      enableOfflineQueue: false,
      autoResubscribe: false,
      retryStrategy: () => null,
      // ioredis 6 speaks RESP3 by default, where messages arrive as pushes; RESP2 as on ioredis 5.
      // (Spread: 5's option types lack `protocol`.)
      ...{ protocol: 2 },
    })
    const mine = new Promise<void>((resolve) => {
      const give = setTimeout(resolve, 2000)
      give.unref()
      subscriber
        .connect()
        .then(() => subscriber.subscribe(channel))
        .then(
          () => resolve(),
          () => resolve(),
        )
        .finally(() => clearTimeout(give))
    })
    subscriber.on('error', () => undefined)
    subscriber.on('connect', () => (subscriber as unknown as { stream?: { unref?(): void } }).stream?.unref?.())
    subscriber.on('message', (from: string, ref: string) => {
      if (from !== channel) return
      for (const heard of waiting.get(ref) ?? []) heard()
    })
    subscriber.once('end', () => {
      if (subscribed === mine) subscribed = null
    })
    current = subscriber
    // Once per vault, not per connection of ours: the app's client ending ends ours.
    if (!watchingEnd) redis.client.once('end', () => current?.disconnect())
    watchingEnd = true
    return mine
  }

  function watch(ref: string): Watch {
    let changed = false
    let wake: (() => void) | null = null
    const these = waiting.get(ref) ?? new Set<() => void>()
    waiting.set(ref, these)
    const heard = () => {
      changed = true
      wake?.()
    }
    these.add(heard)
    const stop = () => {
      these.delete(heard)
      if (these.size === 0 && waiting.get(ref) === these) waiting.delete(ref)
    }
    const wait = (ms: number) =>
      changed
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, Math.max(0, ms))
            wake = () => {
              clearTimeout(timer)
              resolve()
            }
          })
    return { wait, stop }
  }

  return { listen, watch, watching: () => waiting.size }
}
