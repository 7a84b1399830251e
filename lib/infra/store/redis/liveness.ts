import { performance } from 'node:perf_hooks'

/**
 * How current the tracking connection keeps this process. Redis writes every invalidation for a
 * change it made before handling a PING ahead of that PING's answer, on the same connection: once
 * the answer to a PING sent at time `s` has come back, every change Redis made before `s` has
 * reached this process. So an answer from memory is current within `FRESH_MS` when a PING sent less
 * than `FRESH_MS` ago has come back. This covers a silent link (the newest PING outstanding is older
 * still) and an event loop too busy to read what arrived (an answer not yet read does not count).
 *
 * Two bounds, because a slow link and a busy process look alike from here (a PONG read late):
 * - `LINK_MS` (50 ms): a PONG vouches only while this process has spent less than 50 ms idle since
 *   its PING was sent (the event loop's idle time, from libuv): time in which it could have read a
 *   newer PONG, had the link been quick. Over a link that takes 50 ms or more, or a silent one, a
 *   process with time to spare never trusts the cache: a change on another instance is then never
 *   answered from memory more than 50 ms after Redis made it.
 * - `FRESH_MS` (250 ms): what holds whatever the load. A process busy all the time reads its
 *   sockets in turns of its event loop, each handling every request waiting (500 in flight, 50
 *   connections × 10 pipelined: about 70 ms a turn), and reads the PONG of a PING sent in one turn
 *   only in the next, without ever waiting for it. With a single 50 ms bound such a process never
 *   trusted the cache and read Redis for 3 requests in 4 (0.84 × Express); 250 ms covers two such
 *   turns. A process slower than that reads Redis, as it would without the cache.
 *
 * PINGs follow use: a read that finds the newest answered PING `REFRESH_MS` old sends the next one
 * (one at a time), so a process answering requests keeps the cache on with a PING every 25 ms or
 * so (or one per turn of its event loop, if longer), at most 40 a second, and an idle one sends only
 * the keep-alive PING once a second. A read of a held value that finds the connection not fresh
 * waits for that PING (one round trip on our connection, instead of the reads on the app's) for at
 * most `WAIT_MS`, and reads Redis if it is not back by then.
 */
export const FRESH_MS = 250
/** Idle time since the vouching PING was sent after which it vouches for nothing (a slow or silent link). */
export const LINK_MS = 50
/** How long a read waits for a PING before it reads Redis. */
export const WAIT_MS = 50
/** A PING is sent once the newest answered one is this old: one at a time, at most 40 a second. */
const REFRESH_MS = 25
/** A connection of ours with no PING answered for this long is closed and made again. */
const STUCK_MS = 10_000

export interface Liveness {
  /** Whether tracking is confirmed on the current connection (reads may be kept). */
  tracked(): boolean
  /** Whether every change Redis made more than FRESH_MS ago has arrived; sends a PING when due. */
  fresh(): boolean
  /**
   * Whether the connection is fresh now or, failing that, once the PING on its way (sent now if none
   * is) has come back: false when it has not within WAIT_MS of being sent.
   */
  freshSoon(): Promise<boolean>
  /** Sends a PING now, unless one is on its way or tracking is not confirmed. */
  ping(): void
  /** Tracking confirmed on the current connection, by an exchange that began at `sent`. */
  confirm(sent: number): void
  /** A new connection, or none: nothing confirmed, no PING counts that was sent before. */
  reset(): void
  /** Whether the connection has had nothing confirmed for STUCK_MS (a half-open flow, a setup never answered). */
  stuck(): boolean
}

/** The event loop's idle time so far, in ms (libuv's count of the time it spent waiting for I/O). */
const loopIdle = () => performance.eventLoopUtilization().idle

/**
 * `send` sends one PING on the tracking connection; `now` is a monotonic clock in ms; `idle` how long
 * the event loop has waited for I/O so far, in ms.
 */
export function liveness(send: () => Promise<unknown>, now: () => number, idle: () => number = loopIdle): Liveness {
  /** Bumped by reset: the answer to a PING of an older connection counts for nothing. */
  let epoch = 0
  let confirmed = false
  /** When the newest PING that has come back was sent (or the setup that confirmed tracking began). */
  let back = -Infinity
  /** The event loop's idle time when that PING was sent. */
  let idleAtBack = 0
  let since = now()
  let outstanding = false
  /** When the PING on its way was sent. */
  let sentAt = -Infinity
  /** Reads waiting for the PING on its way: told whether the connection is fresh once it is back or too late. */
  let waiting: Array<(fresh: boolean) => void> = []

  /**
   * Less than FRESH_MS since the PING that vouches was sent, and less than LINK_MS of it spent
   * idle: time this process could have read a newer PONG in, had the link been quick.
   */
  const vouched = (age: number) => age < FRESH_MS && idle() - idleAtBack < LINK_MS
  const isFresh = () => confirmed && vouched(now() - back)
  function wake() {
    const these = waiting
    waiting = []
    const fresh = isFresh()
    for (const resolve of these) resolve(fresh)
  }
  function ping() {
    if (!confirmed || outstanding) return
    const at = epoch
    const sent = now()
    const idleAtSend = idle()
    outstanding = true
    sentAt = sent
    // A PING not back within WAIT_MS leaves its waiters to read from Redis.
    const late = setTimeout(wake, WAIT_MS)
    late.unref()
    const settle = (answered: boolean) => {
      if (epoch !== at) return
      clearTimeout(late)
      outstanding = false
      if (answered && sent > back) {
        back = sent
        idleAtBack = idleAtSend
      }
      wake()
    }
    send().then(
      () => settle(true),
      () => settle(false),
    )
  }

  return Object.freeze({
    tracked: () => confirmed,
    fresh() {
      if (!confirmed) return false
      const age = now() - back
      if (age >= REFRESH_MS) ping()
      return vouched(age)
    },
    freshSoon() {
      if (isFresh()) return Promise.resolve(true)
      ping()
      // A PING sent WAIT_MS ago or more: its timer has already woken the reads that waited for it,
      // and a read arriving now must not wait for its answer either (a silent link would hold it
      // until the connection is replaced).
      if (!outstanding || now() - sentAt >= WAIT_MS) return Promise.resolve(false)
      return new Promise<boolean>((resolve) => waiting.push(resolve))
    },
    ping,
    confirm(sent: number) {
      confirmed = true
      // The set-up's exchange vouches like a PING (its idle time counted as all the time it took).
      if (sent > back) {
        back = sent
        idleAtBack = idle() - (now() - sent)
      }
    },
    reset() {
      epoch++
      confirmed = false
      outstanding = false
      back = -Infinity
      since = now()
      wake()
    },
    stuck: () => now() - Math.max(back, since) > STUCK_MS,
  })
}
