import { boundedCache } from '../util/cache'
import { digest } from '../crypto/mac'
import { rateLimiterRedis, rateLimiterRes } from '../util/lazy'
import type { RedisRunner } from './redis'
import type { TrackedReads } from './redis/held'
import { MAX_SESSIONS_PER_USER, type Limiter, type Revocations, type ServerState, type SessionIndex } from './types'

/**
 * Everything the package keeps on the server, in Redis, shared by every instance. Each command
 * touches one key, so all of it works unchanged on Redis Cluster. User ids appear in keys only as
 * their SHA-256.
 */
export function redisState(
  redis: RedisRunner,
  timing: { maxLifetime: number; revocationDelay: number },
  tracked: TrackedReads | null = null,
  trackedRevocations: TrackedReads | null = null,
): ServerState {
  return Object.freeze({
    shared: true,
    revocations: redisRevocations(redis, timing.maxLifetime, timing.revocationDelay, trackedRevocations),
    sessionIndex: redisSessionIndex(redis, tracked),
    limiter: (name: string, points: number, duration: number) => redisLimiter(redis, name, points, duration),
  })
}

function redisLimiter(redis: RedisRunner, name: string, points: number, duration: number): Limiter {
  const RateLimiterRedis = rateLimiterRedis()
  const limiter = new RateLimiterRedis({
    storeClient: redis.client,
    useRedisPackage: false,
    keyPrefix: redis.key('rl', name),
    points,
    duration,
  })
  return Object.freeze({ consume: (key: string) => redis.run(() => consumeOne(limiter.consume(key))) })
}

/** A limiter's answer as the package uses it: null within the limit, else whole seconds to wait. */
function consumeOne(consumed: Promise<unknown>): Promise<number | null> {
  return consumed.then(
    () => null,
    (refused: unknown) => {
      if (refused instanceof rateLimiterRes()) return Math.max(1, Math.ceil(refused.msBeforeNext / 1000))
      throw refused
    },
  )
}

/**
 * A user's revocation time is kept in memory two ways. While tracking is on and fresh (`tracked`:
 * the revocation keys are tracked, ./redis/tracking.ts), the time Redis last gave is answered from
 * memory and dropped as soon as Redis announces a change. Beside it, each time read is kept for
 * `delay` seconds (the revocation delay), and answered when tracking cannot vouch for the time (off,
 * or not fresh: a slow link, or an event loop too late); that copy too is dropped when Redis
 * announces a change. So a revocation on any instance is seen here as soon as its invalidation
 * arrives, and never later than `delay` after the time was read; the hot path stays one look-up
 * in memory, and the instance that revokes sees it at once. A delay of 0 reads Redis every time.
 */
function redisRevocations(redis: RedisRunner, maxLifetime: number, delay: number, tracked: TrackedReads | null) {
  // By key: an announced change drops the copy. A time read while a change was announced is not kept.
  const cache = delay > 0 ? boundedCache<string, number>(50_000, delay * 1000) : null
  let changes = 0
  tracked?.onDrop((key) => {
    changes++
    cache?.delete(key)
  })
  // The hot path asks for a user's key on every hit: its SHA-256 is computed once.
  const keys = boundedCache<string, string>(50_000)
  const keyOf = (userId: string) => {
    let key = keys.get(userId)
    if (key === undefined) keys.set(userId, (key = redis.key('rev', digest(userId))))
    return key
  }
  /** The time from memory, or undefined. */
  const known = (key: string) => {
    const held = tracked?.held(key, '')
    return held === undefined ? cache?.get(key) : timeOf(held)
  }
  // '' for "no time": a user never revoked is held too (only users whose session opened are asked about).
  const read = (key: string) =>
    tracked?.read(key, '', async (client) => (await client.get(key)) ?? '') ?? redis.run((client) => client.get(key))
  const revocations: Revocations & { peek(userId: string): number | undefined } = Object.freeze({
    async before(userId: string, fresh = false) {
      const key = keyOf(userId)
      const cached = fresh ? undefined : known(key)
      if (cached !== undefined) return cached
      const seen = changes
      const time = timeOf(await (fresh ? redis.run((client) => client.get(key)) : read(key)))
      if (seen === changes) cache?.set(key, time)
      return time
    },
    /**
     * What `before` would answer from memory, without a promise; undefined when it would ask Redis,
     * and then the caller asks `before`.
     */
    peek: (userId: string): number | undefined => known(keyOf(userId)),
    async stamp(userId: string) {
      const time = await redis.run((client) => client.eval(STAMP, 1, keyOf(userId)))
      return Number(time)
    },
    async revoke(userId: string) {
      // Kept as long as a session signed in before it could live; after that nothing needs it.
      const key = keyOf(userId)
      const write = () => redis.run((client) => client.eval(REVOKE, 1, key, maxLifetime))
      const time = await (tracked ? tracked.changing(key, write) : write())
      cache?.set(key, Number(time))
    },
  })
  return revocations
}

/** A stored revocation time (seconds), 0 for none or anything else. */
const timeOf = (stored: string | null) => (stored !== null && /^\d{1,12}$/.test(stored) ? Number(stored) : 0)

// Redis's clock, on the node that holds the user's key, dates both a revocation and every sign-in
// after it, so instances whose clocks disagree cannot let an older session through. The time kept
// only ever moves forward, and each revocation past the last one: a session stamped with the last
// (signed in since, in the same second) ends too.
const STAMP = `local now = tonumber(redis.call('TIME')[1])
local before = tonumber(redis.call('GET', KEYS[1]) or '0') or 0
return math.max(now, before)`

const REVOKE = `local now = tonumber(redis.call('TIME')[1]) + 1
local last = tonumber(redis.call('GET', KEYS[1]) or '')
local time = last and math.max(now, last + 1) or now
redis.call('SET', KEYS[1], time, 'EX', ARGV[1])
return time`

/**
 * A sorted set per user: session id → the latest second it can live (sign-in + maxLifetime), so
 * the lowest scores are the oldest sign-ins. One script on the one key adds a session, drops
 * entries past their time and the oldest beyond MAX_SESSIONS_PER_USER (returned, to be ended), and
 * keeps the set until its newest entry ends.
 */
const ADD = `redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
local excess = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[4])
local dropped = {}
if excess > 0 then
  dropped = redis.call('ZRANGE', KEYS[1], 0, excess - 1)
  redis.call('ZREMRANGEBYRANK', KEYS[1], 0, excess - 1)
end
local newest = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
redis.call('EXPIREAT', KEYS[1], newest[2])
return dropped`

/** The key of a user's index of sessions. */
export function indexKey(redis: RedisRunner, userId: string): string {
  return redis.key('idx', digest(userId))
}

/** One session's entry replaced by another's, only if it is there: KEYS[1] the index; ARGV from, to, until. */
const MOVE = `if redis.call('ZREM', KEYS[1], ARGV[1]) == 1 then
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[2])
  return 1
end
return 0`

/** `tracked`: membership reads answered from memory while Redis tracks them (lib/infra/store/redis/tracking.ts). */
function redisSessionIndex(redis: RedisRunner, tracked: TrackedReads | null): SessionIndex {
  const keyOf = (userId: string) => indexKey(redis, userId)
  /** Runs a change of the user's index, with what this process read of it dropped around it. */
  const change = <T>(key: string, command: () => Promise<T>) => (tracked ? tracked.changing(key, command) : command())
  return Object.freeze({
    async add(userId: string, sid: string, untilSeconds: number) {
      const now = Math.floor(Date.now() / 1000)
      const key = keyOf(userId)
      const dropped = await change(key, () =>
        redis.run((client) => client.eval(ADD, 1, key, now, untilSeconds, sid, MAX_SESSIONS_PER_USER)),
      )
      return Array.isArray(dropped) ? dropped.filter((id): id is string => typeof id === 'string') : []
    },
    async has(userId: string, sid: string) {
      const key = keyOf(userId)
      const score =
        tracked?.read(key, sid, (client) => client.zscore(key, sid)) ?? redis.run((client) => client.zscore(key, sid))
      return (await score) !== null
    },
    async members(userId: string, nowSeconds: number) {
      return redis.run((client) => client.zrangebyscore(keyOf(userId), `(${nowSeconds}`, '+inf'))
    },
    async remove(userId: string, sids: readonly string[]) {
      const key = keyOf(userId)
      if (sids.length > 0) await change(key, () => redis.run((client) => client.zrem(key, ...sids)))
    },
    async move(userId: string, from: string, to: string, untilSeconds: number) {
      const key = keyOf(userId)
      return (await change(key, () => redis.run((client) => client.eval(MOVE, 1, key, from, to, untilSeconds)))) === 1
    },
    async claim(userId: string, sid: string) {
      const key = keyOf(userId)
      return (await change(key, () => redis.run((client) => client.zrem(key, sid)))) === 1
    },
  })
}
