import { boundedCache } from '../util/cache'
import { MAX_SESSIONS_PER_USER, type Limiter, type Revocations, type ServerState, type SessionIndex } from './types'

/** How many entries the in-memory state keeps at most. */
export interface MemoryBounds {
  /** Users' revocation times. */
  readonly revocations: number
  /** Users' lists of database sessions. */
  readonly users: number
  /** Keys (client IPs, address hashes) of each rate limit. */
  readonly limiterKeys: number
}

/**
 * 100 000 users each (docs/session-stores.md); 50 000 keys a limit, about 200 bytes each (measured:
 * 11 MB of heap after 100 000 sign-in POSTs, each from a new forged address under `trust proxy:
 * true`), so that a made-up `X-Forwarded-For` per request cannot grow the heap past it.
 */
export const MEMORY_BOUNDS: MemoryBounds = Object.freeze({ revocations: 100_000, users: 100_000, limiterKeys: 50_000 })

/**
 * The embedded default: everything in this process's memory, bounded. Nothing is shared between
 * instances (the service says so at start-up when it matters); `redis` shares it.
 */
export function memoryState(maxLifetime: number, smaller: Partial<MemoryBounds> = {}): ServerState {
  const bounds = { ...MEMORY_BOUNDS, ...smaller }
  return Object.freeze({
    shared: false,
    revocations: memoryRevocations(maxLifetime, bounds.revocations),
    sessionIndex: memorySessionIndex(maxLifetime, bounds.users),
    limiter: (_name: string, points: number, duration: number) => memoryLimiter(points, duration, bounds.limiterKeys),
  })
}

/** A window's count for one key: the window starts at the key's first request and lasts `duration`. */
interface Window {
  hits: number
  readonly endsAt: number
}

/**
 * `points` requests a key every fixed window of `duration` seconds, as rate-limiter-flexible counts
 * them in Redis, for at most `bound` keys (the least recently counted go first). Pushing a key out
 * only ever gives its client a fresh window early, never takes one away: to reset a counter of its
 * own, a client must make `bound` requests under other keys within that window, each of them held
 * by this and every other limit (docs/security.md#rate-limits).
 */
export function memoryLimiter(points: number, duration: number, bound: number): Limiter & { readonly size: number } {
  const windows = boundedCache<string, Window>(bound)
  return {
    async consume(key: string) {
      const now = Date.now()
      const window = windows.get(key)
      if (window === undefined || window.endsAt <= now) {
        windows.set(key, { hits: 1, endsAt: now + duration * 1000 })
        return null
      }
      if (window.hits >= points) return Math.max(1, Math.ceil((window.endsAt - now) / 1000))
      window.hits++
      return null
    },
    get size() {
      return windows.size
    },
  }
}

function memoryRevocations(maxLifetime: number, bound: number): Revocations {
  // A revocation matters only while a session signed in before it can live: maxLifetime. At most
  // `bound` users' revocations are kept (docs/session-stores.md); Redis keeps every one. One pushed
  // out to make room fails closed: the newest time ever dropped applies to every user, so a session
  // signed in before it is refused whoever it belongs to (its user signs in again), and a stolen
  // cookie never opens again because other users' revocations made the victim's go.
  let dropped = 0
  const times = boundedCache<string, number>(bound, maxLifetime * 1000, (time) => {
    dropped = Math.max(dropped, time)
  })
  const now = () => Math.floor(Date.now() / 1000)
  const before = (userId: string) => Math.max(times.get(userId) ?? 0, dropped)
  return Object.freeze({
    before: async (userId: string) => before(userId),
    /** What `before` answers, without a promise: the session hot path checks it on every cached reply. */
    peek: before,
    stamp: async (userId: string) => Math.max(now(), before(userId)),
    async revoke(userId: string) {
      // Always past the last one: a session stamped with it (signed in since, in the same second)
      // ends too. Times are whole seconds.
      const last = times.get(userId)
      times.set(userId, Math.max(now() + 1, last === undefined ? 0 : last + 1))
    },
  })
}

function memorySessionIndex(maxLifetime: number, bound: number): SessionIndex {
  const users = boundedCache<string, Map<string, number>>(bound, maxLifetime * 1000)
  return Object.freeze({
    async add(userId: string, sid: string, untilSeconds: number) {
      const sessions = users.get(userId) ?? new Map<string, number>()
      const now = Date.now() / 1000
      for (const [id, until] of sessions) if (until <= now) sessions.delete(id)
      sessions.set(sid, untilSeconds)
      users.set(userId, sessions)
      // A Map keeps insertion order: the first entries are the oldest sign-ins.
      const dropped = [...sessions.keys()].slice(0, Math.max(0, sessions.size - MAX_SESSIONS_PER_USER))
      for (const id of dropped) sessions.delete(id)
      return dropped
    },
    has: async (userId: string, sid: string) => users.get(userId)?.has(sid) ?? false,
    async members(userId: string, nowSeconds: number) {
      return [...(users.get(userId) ?? new Map<string, number>())]
        .filter(([, until]) => until > nowSeconds)
        .map(([id]) => id)
    },
    async remove(userId: string, sids: readonly string[]) {
      const sessions = users.get(userId)
      if (sessions) for (const sid of sids) sessions.delete(sid)
    },
    claim: async (userId: string, sid: string) => users.get(userId)?.delete(sid) ?? false,
    async move(userId: string, from: string, to: string, untilSeconds: number) {
      const sessions = users.get(userId)
      if (!sessions?.delete(from)) return false
      sessions.set(to, untilSeconds)
      return true
    },
  })
}
