import { digest } from '../../infra/crypto/mac'
import type { RedisRunner } from '../../infra/store/redis'
import { boundedCache } from '../../infra/util/cache'

/**
 * Password guessing slowed, never locked out (OWASP's Authentication Cheat Sheet): each account, each
 * known device of an account and each client keeps a count of failures. Every attempt counts as a
 * failure when it is let through, before its password is judged, and is taken back when it was
 * right. Past its free failures a count takes one attempt per delay, 1 s doubling with each failure
 * up to `maxDelay`, counted from its last failure; an attempt made while it waits is refused unjudged
 * and counts nothing. A count is forgotten `forgetAfter` after its last failure. An attacker can keep
 * an account slow but never shut: its owner's next try waits at most `maxDelay`, and on a known device
 * not at all, since a device has its own count in place of the account's.
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
   * waits out its delay, and nothing is counted. Otherwise 'allowed', and the attempt is counted at
   * once as a failure of both, before any hashing: attempts made at once can never outrun the free
   * failures, since each takes its place in the count as it arrives. Call it once an attempt.
   */
  attempt(account: string, client: string, device: string | null): Promise<'allowed' | 'slowed'>
  /** An allowed attempt that was never judged (hashing was busy): its failure is taken back. */
  release(account: string, client: string, device: string | null): Promise<void>
  /** The right password: the account's (and device's) count starts again, and the client's failure of this attempt is taken back. */
  succeeded(account: string, client: string, device: string | null): Promise<void>
  /** The account's password was reset: its own count starts again (its devices' counts run out by themselves). */
  reset(account: string): Promise<void>
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
  /** Whether the count waits out the delay of its last failure. */
  const waits = (counts: typeof subjects, key: string, free: number, now: number) => {
    const count = live(counts, key, now)
    if (count === undefined || count.failures < free) return false
    const elapsed = now - count.last
    return elapsed >= 0 && elapsed < delayMs(count.failures, free, maxDelay)
  }
  const fail = (counts: typeof subjects, key: string, now: number) =>
    counts.set(key, { failures: (live(counts, key, now)?.failures ?? 0) + 1, last: now })
  /** One failure fewer, its time kept (a count whose last failure this was waits a little longer, never less). */
  const takeBack = (counts: typeof subjects, key: string) => {
    const count = counts.get(key)
    if (count !== undefined) counts.set(key, { failures: Math.max(0, count.failures - 1), last: count.last })
  }
  return Object.freeze({
    async attempt(account: string, client: string, device: string | null) {
      const now = Date.now()
      const subject = subjectOf(account, device).join(':')
      if (waits(subjects, subject, freeFailures, now) || waits(clients, client, clientFreeFailures, now))
        return 'slowed'
      fail(subjects, subject, now)
      fail(clients, client, now)
      return 'allowed'
    },
    async release(account: string, client: string, device: string | null) {
      takeBack(subjects, subjectOf(account, device).join(':'))
      takeBack(clients, client)
    },
    async succeeded(account: string, client: string, device: string | null) {
      subjects.delete(subjectOf(account, null).join(':'))
      if (device !== null) subjects.delete(subjectOf(account, device).join(':'))
      takeBack(clients, client)
    },
    async reset(account: string) {
      subjects.delete(subjectOf(account, null).join(':'))
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
  /** 1: the count waits; 0: it did not, and now holds this attempt's failure. */
  const take = async (key: string, free: number) =>
    (await redis.run((client) => client.eval(TAKE, 1, key, free, maxDelay, forgetMs))) === 1
  const takeBack = (key: string) => redis.run((client) => client.eval(TAKE_BACK, 1, key))
  return Object.freeze({
    async attempt(account: string, client: string, device: string | null) {
      // One key a script (the two are in different slots of a Cluster): where one count waits and
      // the other took the attempt, the other's failure is taken back.
      const subject = keyOf(account, device)
      const [subjectWaits, clientWaits] = await Promise.all([
        take(subject, freeFailures),
        take(clientKey(client), clientFreeFailures),
      ])
      if (subjectWaits === clientWaits) return subjectWaits ? 'slowed' : 'allowed'
      await takeBack(subjectWaits ? clientKey(client) : subject)
      return 'slowed'
    },
    async release(account: string, client: string, device: string | null) {
      await Promise.all([takeBack(keyOf(account, device)), takeBack(clientKey(client))])
    },
    async succeeded(account: string, client: string, device: string | null) {
      const keys = device === null ? [keyOf(account, null)] : [keyOf(account, null), keyOf(account, device)]
      await Promise.all([...keys.map((key) => redis.run((run) => run.del(key))), takeBack(clientKey(client))])
    },
    async reset(account: string) {
      await redis.run((client) => client.del(keyOf(account, null)))
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
 * 1 while the count waits (ARGV: free failures, maxDelay in s, forgetAfter in ms), the same rule as
 * delayMs, and nothing changes. Otherwise 0, and the attempt is counted as a failure now: a second
 * attempt at the same moment sees it.
 */
const TAKE = `${NOW}
${KEPT}
local free = tonumber(ARGV[1])
local elapsed = now - last
if failures >= free and elapsed >= 0 and elapsed < math.min(2 ^ (failures - free), tonumber(ARGV[2])) * 1000 then return 1 end
redis.call('SET', KEYS[1], math.min(failures + 1, 1000000) .. ':' .. now, 'PX', ARGV[3])
return 0`

/** One failure fewer, its time and expiry kept; nothing for a count that is gone. */
const TAKE_BACK = `${KEPT}
if failures > 0 then redis.call('SET', KEYS[1], (failures - 1) .. ':' .. last, 'KEEPTTL') end
return 1`
