import { sizedCache } from '../../infra/util/cache'
import type { SessionRecord } from '../../infra/config/types'
import { revocableSince } from './record'

/**
 * The answers of `GET /session`, by the cookie's exact value. A sealed cookie (the cookie store)
 * always opens to the same record, so the answer for it can only change with time (expiry, renewal)
 * or with a revocation, and both are checked on every hit: a hit answers exactly what opening the
 * cookie again would. A database token's record can change too: such an entry carries the store's
 * check that the record is still the one it holds (Redis client-side caching), asked on every hit.
 * A value that differs in one byte is another key, and is opened (and refused) in full; only
 * cookies that opened are ever kept, so guesses never fill it.
 */
export interface ReplyCache {
  /** The reply for this token, when its session is still valid and not due for renewal at `now`. */
  get(token: string, now: number, revokedBefore: (userId: string) => number | undefined): string | null
  /**
   * Remembers the reply of a session just opened from this token (not renewed: its own record);
   * `current`, for a store whose records change behind a token, says whether it still holds it.
   */
  set(token: string, record: SessionRecord, reply: string, current?: () => boolean): void
  delete(token: string): void
  readonly size: number
  /** Calls of `get` and the replies it gave since the counts were last read and reset (telemetry). */
  readonly counts: CacheCounts
}

/** A cache's look-ups and hits, plain integers bumped in place (no allocation per request). */
export interface CacheCounts {
  lookups: number
  hits: number
}

export interface ReplyCacheLimits {
  /** Most entries. */
  readonly max: number
  /** Most characters held, tokens and replies together (about bytes: both are mostly ASCII). */
  readonly maxChars: number
}

/** 10 000 sessions, 16 MB at most (a typical entry is about 1 KB). */
export const REPLY_CACHE_LIMITS: ReplyCacheLimits = Object.freeze({ max: 10_000, maxChars: 16 * 1024 * 1024 })

interface Entry {
  readonly reply: string
  readonly userId: string
  /** The sign-in time (or re-issue time, record.ts), checked against the user's revocation time on every hit. */
  readonly since: number
  /** The first second the session no longer opens: its expiry, or the end of its lifetime. */
  readonly endsAt: number
  /** The first second the session is due for renewal (the slow path renews it and sets its cookie). */
  readonly renewAt: number
  readonly current: (() => boolean) | undefined
}

/** Per entry besides its strings: the entry object and the cache's own bookkeeping. */
const ENTRY_OVERHEAD = 200

export function replyCache(timing: { updateAge: number; maxLifetime: number }, limits: ReplyCacheLimits): ReplyCache {
  const entries = sizedCache<string, Entry>(
    // One very large session (several chunks) must not push out thousands of ordinary ones.
    { entries: limits.max, maxSize: limits.maxChars, maxEntrySize: 32 * 1024 },
    // A reply with non-Latin-1 characters takes two bytes a character.
    (entry, token) => token.length + 2 * entry.reply.length + ENTRY_OVERHEAD,
  )
  const counts: CacheCounts = { lookups: 0, hits: 0 }
  function lookup(token: string, now: number, revokedBefore: (userId: string) => number | undefined) {
    const entry = entries.get(token)
    if (entry === undefined) return null
    if (now >= entry.endsAt || (entry.current !== undefined && !entry.current())) {
      entries.delete(token)
      return null
    }
    if (now >= entry.renewAt) return null
    // Unknown without I/O (another instance's revocations, not read within the revocation delay):
    // the slow path asks the store.
    const before = revokedBefore(entry.userId)
    return before !== undefined && entry.since >= before ? entry.reply : null
  }
  return {
    get(token, now, revokedBefore) {
      counts.lookups++
      const reply = lookup(token, now, revokedBefore)
      if (reply !== null) counts.hits++
      return reply
    },
    set(token, record, reply, current) {
      const lifetimeEnd = record.createdAt + timing.maxLifetime
      // Renewal never moves the expiry past the lifetime: a session already there is never renewed.
      const renews = record.expiresAt < lifetimeEnd
      entries.set(token, {
        reply,
        userId: record.userId,
        since: revocableSince(record),
        endsAt: Math.min(record.expiresAt, lifetimeEnd),
        renewAt: renews ? record.issuedAt + timing.updateAge : Infinity,
        current,
      })
    },
    delete(token) {
      entries.delete(token)
    },
    get size() {
      return entries.size
    },
    counts,
  }
}
