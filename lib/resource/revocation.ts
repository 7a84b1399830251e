import { digest } from '../infra/crypto/mac'
import { storeHealth } from '../infra/store/health'
import { redisRunner, type RedisClient, type RedisRunner } from '../infra/store/redis'
import { clusterTracking } from '../infra/store/redis/cluster-tracking'
import { redisTracking, type TrackedReads } from '../infra/store/redis/tracking'
import { boundedCache } from '../infra/util/cache'

/**
 * Whether the session a token was issued from has ended, as the auth service records it in the
 * Redis they share: `{prefix}rev:{SHA-256 of the user id}` holds the user's revocation time in
 * seconds (every session signed in before it ended: "sign out everywhere", a password change), and
 * `{prefix}ended:{sid}` exists once that one session ended (signed out, its device revoked, logged
 * out by the provider). Both are read through Redis's server-assisted client-side caching
 * (../infra/store/redis/tracking.ts, BCAST on those two prefixes): once read, a key's value is
 * answered from memory, with no command, while the tracking connection vouches for it, and
 * forgotten as soon as Redis announces a change to the key. So a session that ends is refused here
 * within one round trip of Redis's announcement, and the hot path is two look-ups in memory. A
 * key not held (first use, an announcement, the 10 s hold, a tracking connection not fresh) is
 * read from Redis under the deadline; no answer is `unavailable`, and the token is refused (503):
 * a token that could not be checked is never accepted.
 */
export type Revocation = 'live' | 'ended' | 'unavailable'

export interface RevocationCheck {
  /** Synchronous when both keys are held (no promise made); the promise never rejects. */
  check(userId: string, sid: string, issuedAt: number): Revocation | Promise<Revocation>
}

/**
 * One check per Redis client and key prefix, however many `requireAccessToken()` an app makes (one
 * per route, say): each would otherwise open a tracking connection of its own. Per process, as
 * tracking.ts's own listeners are; the client being a key, the check goes when the client goes.
 */
const checks = new WeakMap<RedisClient, Map<string, RevocationCheck>>()

export function revocationCheck(client: RedisClient, prefix: string, timeoutMs: number): RevocationCheck {
  const byPrefix = checks.get(client) ?? new Map<string, RevocationCheck>()
  checks.set(client, byPrefix)
  const id = `${timeoutMs} ${prefix}`
  let check = byPrefix.get(id)
  if (check === undefined) byPrefix.set(id, (check = newCheck(client, prefix, timeoutMs)))
  return check
}

function newCheck(client: RedisClient, prefix: string, timeoutMs: number): RevocationCheck {
  // The outage shows as 503s to the API's callers; the app's own client logs its connection errors.
  const redis = redisRunner(
    client,
    prefix,
    timeoutMs,
    storeHealth(() => undefined, 'Redis'),
  )
  const prefixes = [redis.key('rev', ''), redis.key('ended', '')]
  const tracked = client.isCluster ? clusterTracking(redis, prefixes) : redisTracking(redis, prefixes)
  // A user's key is a SHA-256 of the id: computed once per user, not per request.
  const userKeys = boundedCache<string, string>(50_000)
  const revKey = (userId: string) => {
    let key = userKeys.get(userId)
    if (key === undefined) userKeys.set(userId, (key = redis.key('rev', digest(userId))))
    return key
  }
  return Object.freeze({
    check(userId: string, sid: string, issuedAt: number): Revocation | Promise<Revocation> {
      const rev = revKey(userId)
      const ended = redis.key('ended', sid)
      const time = tracked?.held(rev, '')
      const gone = tracked?.held(ended, '')
      if (time !== undefined && gone !== undefined) return verdict(issuedAt, time, gone)
      const reads = [
        time === undefined ? read(redis, tracked, rev, revTime(rev)) : Promise.resolve(time),
        gone === undefined ? read(redis, tracked, ended, exists(ended)) : Promise.resolve(gone),
      ] as const
      return Promise.all(reads).then(
        ([readTime, readGone]) => verdict(issuedAt, readTime, readGone),
        () => 'unavailable' as const,
      )
    },
  })
}

/** Through the held values when tracking is on (kept for the next request), else straight from Redis. */
function read(
  redis: RedisRunner,
  tracked: TrackedReads | null,
  key: string,
  command: (client: RedisClient) => Promise<string>,
): Promise<string> {
  return tracked?.read(key, '', command) ?? redis.run(command)
}

// '' for "none": a user never revoked, a session not ended, is held too, so that it costs no read either.
const revTime = (key: string) => async (client: RedisClient) => (await client.get(key)) ?? ''
const exists = (key: string) => async (client: RedisClient) => ((await client.exists(key)) > 0 ? '1' : '')

/** Ended when the session's key exists, or the token was issued before the user's revocation time. */
function verdict(iat: number, time: string, gone: string): Revocation {
  if (gone !== '') return 'ended'
  // As the service writes it (lib/infra/store/redis-state.ts): whole seconds; anything else is no time.
  const revokedAt = /^\d{1,12}$/.test(time) ? Number(time) : 0
  return iat < revokedAt ? 'ended' : 'live'
}
