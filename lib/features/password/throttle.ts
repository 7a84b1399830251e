import { digest } from '../../infra/crypto/mac'
import type { RedisRunner } from '../../infra/store/redis'
import { boundedCache } from '../../infra/util/cache'

/**
 * Password guessing slowed, never locked out (OWASP's Authentication Cheat Sheet): each account, each
 * known device of an account and each client keeps a count of failures. Past its free failures it
 * takes one attempt per delay, 1 s doubling with each failure up to `maxDelay`, counted from its last
 * failure; a count is forgotten `forgetAfter` after its last failure. An attacker can keep an account
 * slow but never shut: its owner waits at most `maxDelay`, and on a known device not at all, since a
 * device has its own count in place of the account's.
 */
export interface ThrottleOptions {
  /** Failures an account (or one of its known devices) makes before its first delay. Default 10. */
  readonly freeFailures: number
  /** The longest delay, seconds. Default 300. */
  readonly maxDelay: number
  /** Failures a client (over every account) makes before its first delay. Default 100. */
  readonly clientFreeFailures: number
  /** Seconds without a failure after which a count is forgotten. Default 86400. */
  readonly forgetAfter: number
}

export interface Throttle {
  /**
   * Before judging a password: 'slowed' while the account (or, given, the device; or the client)
   * waits out its delay. Counts no failure, but once past the free failures an 'allowed' is the one
   * attempt of its delay, taken (so that attempts made at once cannot all pass): call it once an attempt.
   */
  check(account: string, client: string, device: string | null): Promise<'allowed' | 'slowed'>
  /** A wrong password, an unknown identifier, or a slowed attempt: one more failure for the account (or, for a known device, the device's own count) and the client. */
  failed(account: string, client: string, device: string | null): Promise<void>
  /** The right password: the account's (and device's) count starts again; the client's stays. */
  succeeded(account: string, client: string, device: string | null): Promise<void>
}

/** How long a count waits after its last failure, ms: nothing within the free failures, then 1 s, doubling, capped. */
function delayMs(failures: number, free: number, maxDelay: number): number {
  return failures < free ? 0 : Math.min(2 ** (failures - free), maxDelay) * 1000
}

/**
 * Whose count an attempt is: the account's, or with a known device the device's. Account and client
 * arrive hashed by the caller; a device id is this account's, and is hashed with it into a key of
 * fixed length that shows neither.
 */
function subjectOf(account: string, device: string | null): readonly ['a' | 'd', string] {
  return device === null ? ['a', account] : ['d', digest(`${account}\0${device}`)]
}

/** The entries each of the memory throttle's two caches keeps at most (about 200 bytes each). */
export const THROTTLE_BOUND = 50_000

interface Count {
  readonly failures: number
  /** When the last failure (or the attempt of this delay) was, ms. */
  readonly last: number
}

/**
 * Counts in this process's memory, at most `bound` accounts and devices and `bound` clients, the
 * least recently counted first out. Pushing a count out only ever gives its account a fresh count
 * early: to get one, an attacker makes `bound` failures under other identifiers between two of its
 * own, each held by the client counts (which a flood from few clients keeps fresh).
 */
export function memoryThrottle(options: ThrottleOptions, bound = THROTTLE_BOUND): Throttle & { readonly size: number } {
  const { freeFailures, clientFreeFailures, maxDelay } = options
  const subjects = boundedCache<string, Count>(bound)
  const clients = boundedCache<string, Count>(bound)
  const live = (counts: typeof subjects, key: string, now: number) => {
    const count = counts.get(key)
    return count !== undefined && now - count.last < options.forgetAfter * 1000 ? count : undefined
  }
  /** Whether the count waits; if not and it is past its free failures, takes this delay's attempt. */
  const waits = (counts: typeof subjects, key: string, free: number, now: number) => {
    const count = live(counts, key, now)
    if (count === undefined || count.failures < free) return false
    const elapsed = now - count.last
    if (elapsed >= 0 && elapsed < delayMs(count.failures, free, maxDelay)) return true
    counts.set(key, { failures: count.failures, last: now })
    return false
  }
  const fail = (counts: typeof subjects, key: string, now: number) =>
    counts.set(key, { failures: (live(counts, key, now)?.failures ?? 0) + 1, last: now })
  return Object.freeze({
    async check(account: string, client: string, device: string | null) {
      const now = Date.now()
      const subject = waits(subjects, subjectOf(account, device).join(':'), freeFailures, now)
      const from = waits(clients, client, clientFreeFailures, now)
      return subject || from ? 'slowed' : 'allowed'
    },
    async failed(account: string, client: string, device: string | null) {
      const now = Date.now()
      fail(subjects, subjectOf(account, device).join(':'), now)
      fail(clients, client, now)
    },
    async succeeded(account: string, _client: string, device: string | null) {
      subjects.delete(subjectOf(account, null).join(':'))
      if (device !== null) subjects.delete(subjectOf(account, device).join(':'))
    },
    /** Counts kept, for the specs of the bound. */
    get size() {
      return subjects.size + clients.size
    },
  })
}

/**
 * Counts in Redis (single or Cluster), shared by every instance: `pw:a:<account>`, `pw:d:<SHA-256 of
 * account and device>`, `pw:c:<client>` under the prefix, each `<failures>:<ms of the last>`,
 * expiring `forgetAfter` after its last failure. Each script touches one key (Cluster-safe) and
 * reads Redis's clock (TIME), so instances whose clocks disagree count the same delays.
 */
export function redisThrottle(redis: RedisRunner, options: ThrottleOptions): Throttle {
  const { freeFailures, clientFreeFailures, maxDelay } = options
  const forgetMs = Math.max(1, Math.ceil(options.forgetAfter * 1000))
  const keyOf = (account: string, device: string | null) => redis.key('pw', ...subjectOf(account, device))
  const clientKey = (client: string) => redis.key('pw', 'c', client)
  const waits = async (key: string, free: number) =>
    (await redis.run((client) => client.eval(WAITS, 1, key, free, maxDelay, forgetMs))) === 1
  const fail = (key: string) => redis.run((client) => client.eval(FAIL, 1, key, forgetMs))
  return Object.freeze({
    async check(account: string, client: string, device: string | null) {
      const slowed = await Promise.all([
        waits(keyOf(account, device), freeFailures),
        waits(clientKey(client), clientFreeFailures),
      ])
      return slowed.includes(true) ? 'slowed' : 'allowed'
    },
    async failed(account: string, client: string, device: string | null) {
      await Promise.all([fail(keyOf(account, device)), fail(clientKey(client))])
    },
    async succeeded(account: string, _client: string, device: string | null) {
      // One key a command: the account's and the device's are in different slots of a Cluster.
      const keys = device === null ? [keyOf(account, null)] : [keyOf(account, null), keyOf(account, device)]
      await Promise.all(keys.map((key) => redis.run((client) => client.del(key))))
    },
  })
}

// Redis's clock in ms, on the node that holds the key.
const NOW = `local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)`

// The count kept under KEYS[1] (0 and 0 for none, or for a value that is not ours).
const KEPT = `local failures, last = string.match(redis.call('GET', KEYS[1]) or '', '^(%d+):(%d+)$')
failures = tonumber(failures) or 0
last = tonumber(last) or 0`

/**
 * 1 while the count waits (ARGV: free failures, maxDelay in s, forgetAfter in ms); the same rule as
 * delayMs. Past its free failures and not waiting, the attempt of this delay is taken: the delay
 * starts again from now, so a second attempt at the same moment waits.
 */
const WAITS = `${NOW}
${KEPT}
local free = tonumber(ARGV[1])
if failures < free then return 0 end
local elapsed = now - last
if elapsed >= 0 and elapsed < math.min(2 ^ (failures - free), tonumber(ARGV[2])) * 1000 then return 1 end
redis.call('SET', KEYS[1], failures .. ':' .. now, 'PX', ARGV[3])
return 0`

/** One more failure, now (ARGV: forgetAfter in ms); counts stop at a million, far past any delay's cap. */
const FAIL = `${NOW}
${KEPT}
redis.call('SET', KEYS[1], math.min(failures + 1, 1000000) .. ':' .. now, 'PX', ARGV[1])
return 1`
