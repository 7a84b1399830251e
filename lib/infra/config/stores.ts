import { ConfigurationError } from '../errors'
import type { Log } from '../logger'
import { isRedisClient, type RedisClient } from '../store/redis'
import { isExpressSessionStore } from '../store/express-session-store'
import { checkKeys, describe, optionalObject, optionalSeconds } from '../util/options'

/**
 * Where sessions and the server-side state live: `session` (strategy, store, lifetimes, the
 * revocation delay) and `redis` with its key prefix. See docs/session-stores.md.
 */

const DAY = 24 * 60 * 60

export type ResolvedRedis = { readonly client: RedisClient; readonly prefix: string } | null

const REDIS_KEY_PREFIX = /^[\w:.-]{1,64}$/

export function resolveRedis(options: Record<string, unknown>): ResolvedRedis {
  const { redis: client, redisKeyPrefix: prefix } = options
  if (client === undefined) {
    if (prefix !== undefined)
      throw new ConfigurationError(
        '`redisKeyPrefix` is set but `redis` is not: pass `redis: new Redis(url)` too, or drop it',
      )
    return null
  }
  if (!isRedisClient(client)) {
    throw new ConfigurationError(
      `\`redis\` must be an ioredis client that the app creates: \`new Redis(process.env.REDIS_URL)\` or \`new Cluster(nodes)\`; got ${describe(client)}`,
    )
  }
  if (prefix !== undefined && (typeof prefix !== 'string' || !REDIS_KEY_PREFIX.test(prefix))) {
    throw new ConfigurationError(
      `\`redisKeyPrefix\` must be 1 to 64 letters, digits, '_', '-', '.' or ':' (such as 'myapp:auth:'); got ${describe(prefix)}`,
    )
  }
  return Object.freeze({ client, prefix: prefix ?? 'auth:' })
}

/**
 * An ioredis client (or Cluster) with no `error` listener prints "Unhandled error event" with a
 * stack on every failed retry while Redis is down, and the app learns nothing else: warned once,
 * at start, with the fix. Our own connections (duplicates) carry their own listener.
 */
export function warnWithoutErrorListener(client: RedisClient, log: Log): void {
  const emitter = client as unknown as { listenerCount?: (event: string) => number }
  if (typeof emitter.listenerCount !== 'function' || emitter.listenerCount('error') > 0) return
  log(
    'warn',
    'redis.no_error_listener',
    `the \`redis\` client has no 'error' listener: while Redis is down, ioredis prints "Unhandled error event" on every retry; add one where the client is made: redis.on('error', …), logging the error, say`,
  )
}

export function resolveSession(value: unknown, redis: boolean) {
  const session = optionalObject(value, 'session')
  checkKeys(session, ['strategy', 'maxAge', 'updateAge', 'maxLifetime', 'store', 'revocationDelay'], 'session.')
  const strategy = session.strategy ?? 'cookie'
  if (strategy !== 'cookie' && strategy !== 'database') {
    throw new ConfigurationError(`\`session.strategy\` must be 'cookie' or 'database'; got ${describe(strategy)}`)
  }
  const store = session.store ?? null
  if (store !== null && strategy !== 'database') {
    throw new ConfigurationError(
      "`session.store` is used only with `session.strategy: 'database'`: set the strategy too",
    )
  }
  if (store !== null && !isExpressSessionStore(store)) {
    throw new ConfigurationError(
      `\`session.store\` must be an express-session compatible store (with get, set and destroy); got ${describe(store)}`,
    )
  }
  if (strategy === 'database' && store === null && !redis) {
    throw new ConfigurationError(
      "`session.strategy: 'database'` needs somewhere to keep sessions: set `redis` (an ioredis client) or `session.store` (an express-session store)",
    )
  }
  const revocationDelay = session.revocationDelay ?? 10
  if (
    typeof revocationDelay !== 'number' ||
    !Number.isInteger(revocationDelay) ||
    revocationDelay < 0 ||
    revocationDelay > 3600
  ) {
    throw new ConfigurationError(
      `\`session.revocationDelay\` must be a whole number of seconds from 0 to 3600; got ${describe(revocationDelay)}`,
    )
  }
  const maxAge = optionalSeconds(session.maxAge, 'session.maxAge', 30 * DAY)
  const updateAge = optionalSeconds(session.updateAge, 'session.updateAge', Math.min(DAY, maxAge))
  if (updateAge > maxAge)
    throw new ConfigurationError(`\`session.updateAge\` (${updateAge}) must not exceed \`session.maxAge\` (${maxAge})`)
  // Renewal alone would keep a stolen cookie alive for ever: a session ends this long after sign-in.
  const maxLifetime = optionalSeconds(session.maxLifetime, 'session.maxLifetime', Math.max(30 * DAY, maxAge))
  if (maxLifetime < maxAge) {
    throw new ConfigurationError(
      `\`session.maxLifetime\` (${maxLifetime}) must be at least \`session.maxAge\` (${maxAge}): raise it, or lower maxAge`,
    )
  }
  return Object.freeze({ strategy, maxAge, updateAge, maxLifetime, store, revocationDelay })
}
