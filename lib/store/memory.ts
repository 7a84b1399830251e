import { boundedCache } from '../util/cache'
import { rateLimiterMemory, rateLimiterRes } from '../util/lazy'
import { MAX_SESSIONS_PER_USER, type Limiter, type Revocations, type ServerState, type SessionIndex } from './types'

/** How many entries the in-memory state keeps at most: users' revocation times and session lists. */
export interface MemoryBounds {
  readonly revocations: number
  readonly users: number
}

/** 100 000 users each (docs/session-stores.md). */
export const MEMORY_BOUNDS: MemoryBounds = Object.freeze({ revocations: 100_000, users: 100_000 })

/**
 * The embedded default: everything in this process's memory, bounded. Nothing is shared between
 * instances (the service says so at start-up when it matters); `redis` shares it.
 */
export function memoryState(maxLifetime: number, bounds: MemoryBounds = MEMORY_BOUNDS): ServerState {
  return Object.freeze({
    shared: false,
    revocations: memoryRevocations(maxLifetime, bounds.revocations),
    sessionIndex: memorySessionIndex(maxLifetime, bounds.users),
    limiter: (name: string, points: number, duration: number) => memoryLimiter(name, points, duration),
  })
}

function memoryLimiter(keyPrefix: string, points: number, duration: number): Limiter {
  const RateLimiterMemory = rateLimiterMemory()
  const limiter = new RateLimiterMemory({ keyPrefix, points, duration })
  return Object.freeze({ consume: (key: string) => consumeOne(limiter.consume(key)) })
}

/** A limiter's answer as the package uses it: null within the limit, else whole seconds to wait. */
export function consumeOne(consumed: Promise<unknown>): Promise<number | null> {
  return consumed.then(
    () => null,
    (refused: unknown) => {
      if (refused instanceof rateLimiterRes()) return Math.max(1, Math.ceil(refused.msBeforeNext / 1000))
      throw refused
    },
  )
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
      times.set(userId, Math.max(now() + 1, times.get(userId) ?? 0))
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
  })
}
