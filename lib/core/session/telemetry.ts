import type { Attributes, Telemetry } from '../../infra/telemetry'
import type { TrackingStats } from '../../infra/store/redis/held'

/**
 * What the session layer tells telemetry (docs/telemetry.md): `auth.session.checks` by result, and
 * the gauges of the in-memory caches on the request path. Attributes are constants made once: a
 * count costs no allocation of ours.
 */

/** The result of one session check, counted by the manager (./manager.ts). */
export interface SessionChecks {
  /** Answered from memory (the reply cache, records held current by Redis) or from the cookie itself. */
  hit(): void
  /** Read from the store (Redis, the app's session store). */
  miss(): void
  /** No valid session: no token, or one that opens to nothing. */
  none(): void
}

const ignored = () => undefined
export const NO_CHECKS: SessionChecks = Object.freeze({ hit: ignored, miss: ignored, none: ignored })

const HIT: Attributes = Object.freeze({ 'auth.result': 'hit' })
const MISS: Attributes = Object.freeze({ 'auth.result': 'miss' })
const NONE: Attributes = Object.freeze({ 'auth.result': 'none' })

export function sessionChecks(telemetry: Telemetry): SessionChecks {
  return Object.freeze({
    hit: () => telemetry.add('auth.session.checks', HIT),
    miss: () => telemetry.add('auth.session.checks', MISS),
    none: () => telemetry.add('auth.session.checks', NONE),
  })
}

/** An in-memory cache as the gauges read it: entries held, and look-ups and hits since the last reading. */
type ObservedCache = Pick<TrackingStats, 'size' | 'counts'>

/** The caches on the request path, by their `auth.cache` name. */
const CACHE_NAMES = Object.freeze({ replies: 'session.replies', tracked: 'redis.tracked' })

/**
 * Registers the readers of `auth.cache.size` and `auth.cache.hit_ratio` for the reply cache of
 * `GET /session` (./reply-cache.ts) and the values held by Redis tracking
 * (lib/infra/store/redis/held.ts), where they exist, and of `auth.redis.tracking.up` where tracking
 * does. A hit ratio is the share of look-ups answered from memory since the previous collection,
 * observed only when there was a look-up; reading it starts the counts again (with several metric
 * readers, each sees the look-ups since any reader's last collection).
 */
export function observeCaches(
  telemetry: Telemetry,
  replies: ObservedCache | null,
  tracking: TrackingStats | null,
): void {
  const caches = [
    [CACHE_NAMES.replies, replies],
    [CACHE_NAMES.tracked, tracking],
  ] as const
  const present = caches.flatMap(([name, cache]) =>
    cache === null ? [] : [{ cache, attributes: Object.freeze({ 'auth.cache': name }) }],
  )
  if (present.length > 0) {
    telemetry.observe('auth.cache.size', (observe) => {
      for (const { cache, attributes } of present) observe(cache.size, attributes)
    })
    telemetry.observe('auth.cache.hit_ratio', (observe) => {
      for (const { cache, attributes } of present) {
        const { lookups, hits } = cache.counts
        cache.counts.lookups = 0
        cache.counts.hits = 0
        if (lookups > 0) observe(hits / lookups, attributes)
      }
    })
  }
  if (tracking !== null) telemetry.observe('auth.redis.tracking.up', (observe) => observe(tracking.up() ? 1 : 0))
}
