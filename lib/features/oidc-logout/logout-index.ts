import { digest } from '../../infra/crypto/mac'
import { boundedCache } from '../../infra/util/cache'
import type { RedisRunner } from '../../infra/store/redis'

/**
 * What OpenID Connect back-channel logout needs kept on the server: which of our sessions or users
 * an identity provider's session (`sid`) or subject (`sub`) signed in (entries the caller encodes,
 * lib/features/oidc-logout/backchannel.ts), and which logout tokens (`jti`) were already used. In memory by default; in Redis with `redis`, so that every instance sees both.
 * Provider ids, sids, subs and jtis appear in Redis keys only as their SHA-256.
 */
export interface LogoutIndex {
  /**
   * Remembers that `name` (a provider's session or subject) signed in `entry` (never beginning with a
   * NUL), for `ttlSeconds`. A name holds at most MAX_ENTRIES_PER_NAME entries; past that, `whenFull`
   * (an entry naming more, such as the whole user) is kept instead, for MAX_USERS_PER_NAME more at
   * most. False, and nothing kept, when the name was taken as ended within ENDED_KEPT_SECONDS.
   */
  remember(name: string, entry: string, ttlSeconds: number, whenFull?: string): Promise<boolean>
  /**
   * The entries `name` signed in, kept until `forget` (so that a logout that fails part-way finds
   * them again). `ended`: the name is marked as ended first, so that a sign-in through it that is
   * under way is refused, not remembered.
   */
  entries(name: string, ended?: boolean): Promise<string[]>
  /**
   * Forgets `entries` of `name` (once they ended). `ended`: the name is left marked as ended for
   * ENDED_KEPT_SECONDS, with nothing else.
   */
  forget(name: string, entries: readonly string[], ended?: boolean): Promise<void>
  /** Whether `jti` was spent within its `firstUse` time (a replay). */
  used(jti: string): Promise<boolean>
  /** Spends `jti`: true the first time it is seen within `ttlSeconds`; false for a replay. */
  firstUse(jti: string, ttlSeconds: number): Promise<boolean>
  /** RP-initiated logout: keeps a sign-in's ID token under a random handle (the browser's cookie holds the handle). */
  keepHint(handle: string, idToken: string, ttlSeconds: number): Promise<void>
  /** The ID token kept under `handle`, once (it is forgotten), or null. */
  takeHint(handle: string): Promise<string | null>
}

/** A provider's session or subject names very few of our users (usually one): more are not kept. */
export const MAX_USERS_PER_NAME = 20

/**
 * A provider's session signs in a few of our sessions (one per sign-in through it, each ending the
 * browser's previous one). Past this many, the entry kept is the user's (`whenFull`): a logout then
 * ends more than it names, never less.
 */
export const MAX_ENTRIES_PER_NAME = 50

/**
 * How long a provider session that logged out refuses to be remembered again: longer than a
 * sign-in's flow (15 minutes), so that no sign-in through it that was under way survives its logout.
 */
export const ENDED_KEPT_SECONDS = 16 * 60

/** The one member of an ended name's set (entries never begin with a NUL). */
const ENDED = '\0ended'

/** In this process's memory, bounded: a name pushed out is a logout that finds nobody (see docs/logout.md). */
export function memoryLogoutIndex(bound = 100_000): LogoutIndex {
  const names = boundedCache<string, { entries: Set<string>; until: number; ended?: true }>(bound)
  const jtis = boundedCache<string, number>(bound)
  const hints = boundedCache<string, string>(bound)
  const now = () => Date.now()
  return Object.freeze({
    async keepHint(handle: string, idToken: string, ttlSeconds: number) {
      hints.set(handle, idToken, { ttl: ttlSeconds * 1000 })
    },
    async takeHint(handle: string) {
      const hint = hints.get(handle) ?? null
      hints.delete(handle)
      return hint
    },
    async remember(name: string, entry: string, ttlSeconds: number, whenFull?: string) {
      const until = now() + ttlSeconds * 1000
      const kept = names.get(name)
      if (kept?.ended && kept.until > now()) return false
      if (kept === undefined || kept.until <= now()) {
        names.set(name, { entries: new Set([entry]), until })
        return true
      }
      const { size } = kept.entries
      if (size < MAX_ENTRIES_PER_NAME) kept.entries.add(entry)
      else if (whenFull !== undefined && size < MAX_ENTRIES_PER_NAME + MAX_USERS_PER_NAME) kept.entries.add(whenFull)
      kept.until = Math.max(kept.until, until)
      return true
    },
    async entries(name: string, ended = false) {
      const live = names.get(name)
      const kept = live === undefined || live.until <= now() ? undefined : live
      if (ended) {
        const until = Math.max(kept?.until ?? 0, now() + ENDED_KEPT_SECONDS * 1000)
        names.set(name, { entries: kept?.entries ?? new Set(), until, ended: true })
      }
      return kept === undefined ? [] : [...kept.entries]
    },
    async forget(name: string, entries: readonly string[], ended = false) {
      const kept = names.get(name)
      if (ended) names.set(name, { entries: new Set(), until: now() + ENDED_KEPT_SECONDS * 1000, ended: true })
      else for (const entry of entries) kept?.entries.delete(entry)
      if (!ended && kept?.entries.size === 0) names.delete(name)
    },
    async used(jti: string) {
      return (jtis.get(jti) ?? 0) > now()
    },
    async firstUse(jti: string, ttlSeconds: number) {
      const seen = jtis.get(jti)
      if (seen !== undefined && seen > now()) return false
      jtis.set(jti, now() + ttlSeconds * 1000)
      return true
    },
  })
}

// One key each, so that it works unchanged on Redis Cluster; the set lives as long as its newest entry needs.
const REMEMBER = `if redis.call('SISMEMBER', KEYS[1], ARGV[6]) == 1 then return 0 end
local size = redis.call('SCARD', KEYS[1])
if size < tonumber(ARGV[3]) then redis.call('SADD', KEYS[1], ARGV[1])
elseif ARGV[4] ~= '' and size < tonumber(ARGV[3]) + tonumber(ARGV[5]) then redis.call('SADD', KEYS[1], ARGV[4]) end
if redis.call('TTL', KEYS[1]) < tonumber(ARGV[2]) then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
return 1`

// Marked as ended (ARGV[1] seconds at least) before it is read: nothing is remembered under it from then on.
const ENTRIES = `if ARGV[1] ~= '0' then
  redis.call('SADD', KEYS[1], ARGV[2])
  if redis.call('TTL', KEYS[1]) < tonumber(ARGV[1]) then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
end
return redis.call('SMEMBERS', KEYS[1])`

const FORGET = `if ARGV[1] ~= '0' then
  redis.call('DEL', KEYS[1])
  redis.call('SADD', KEYS[1], ARGV[2])
  redis.call('EXPIRE', KEYS[1], ARGV[1])
  return 1
end
for index = 3, #ARGV do redis.call('SREM', KEYS[1], ARGV[index]) end
return 1`

/** In Redis, shared by every instance: a replayed jti is refused whichever instance saw it first. */
export function redisLogoutIndex(redis: RedisRunner): LogoutIndex {
  const nameKey = (name: string) => redis.key('bcl', 'name', digest(name))
  const hintKey = (handle: string) => redis.key('bcl', 'hint', digest(handle))
  const jtiKey = (jti: string) => redis.key('bcl', 'jti', digest(jti))
  return Object.freeze({
    async keepHint(handle: string, idToken: string, ttlSeconds: number) {
      await redis.run((client) => client.set(hintKey(handle), idToken, 'EX', ttlSeconds))
    },
    async takeHint(handle: string) {
      return redis.run((client) => client.getdel(hintKey(handle)))
    },
    async remember(name: string, entry: string, ttlSeconds: number, whenFull?: string) {
      const kept = await redis.run((client) =>
        client.eval(
          REMEMBER,
          1,
          nameKey(name),
          entry,
          ttlSeconds,
          MAX_ENTRIES_PER_NAME,
          whenFull ?? '',
          MAX_USERS_PER_NAME,
          ENDED,
        ),
      )
      return kept === 1
    },
    async entries(name: string, ended = false) {
      const entries = await redis.run((client) =>
        client.eval(ENTRIES, 1, nameKey(name), ended ? ENDED_KEPT_SECONDS : 0, ENDED),
      )
      const kept = Array.isArray(entries) ? entries : []
      return kept.filter((entry): entry is string => typeof entry === 'string' && entry !== ENDED)
    },
    async forget(name: string, entries: readonly string[], ended = false) {
      await redis.run((client) =>
        client.eval(FORGET, 1, nameKey(name), ended ? ENDED_KEPT_SECONDS : 0, ENDED, ...entries),
      )
    },
    async used(jti: string) {
      return (await redis.run((client) => client.exists(jtiKey(jti)))) === 1
    },
    async firstUse(jti: string, ttlSeconds: number) {
      const set = await redis.run((client) => client.set(jtiKey(jti), '1', 'EX', ttlSeconds, 'NX'))
      return set === 'OK'
    },
  })
}
