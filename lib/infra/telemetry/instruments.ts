/**
 * The metrics the package reports (docs/telemetry.md, "Metrics"). Every attribute value is bounded:
 * a configured provider id, an outcome, a limit's name, a cache's name; never a user.
 */
export const COUNTERS = {
  'auth.signin.attempts': { description: 'Sign-ins that ended, by provider and outcome (success, failure)' },
  'auth.session.checks': {
    description:
      'Session reads, by result (hit: answered from memory or the cookie; miss: read from the store; none: no session)',
  },
  'auth.token.refreshes': { description: "Refreshes of a provider's tokens, by provider and outcome" },
  'auth.revocations': {
    description:
      'Sessions ended before their time, by kind (signout.everywhere, session.revoked, logout.backchannel, …)',
  },
  'auth.mail.sent': { description: 'Sign-in and account mails, by outcome (sent, failed)' },
  'auth.ratelimit.refusals': { description: 'Requests refused by a limit, by limit' },
} as const

export const HISTOGRAMS = {
  'auth.provider.duration': {
    description: "Calls to an identity provider's endpoints, by provider and endpoint",
    unit: 's',
    advice: { explicitBucketBoundaries: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] },
  },
} as const

export const GAUGES = {
  'auth.cache.size': { description: 'Entries held by each in-memory cache, by cache (session.replies, redis.tracked)' },
  'auth.cache.hit_ratio': {
    description:
      'Share of lookups each in-memory cache answered since the last collection, by cache (session.replies, redis.tracked)',
  },
  'auth.redis.tracking.up': {
    description: "1 while the Redis client-side cache's invalidation connection is up, else 0",
  },
} as const

export type CounterName = keyof typeof COUNTERS
export type HistogramName = keyof typeof HISTOGRAMS
export type GaugeName = keyof typeof GAUGES
