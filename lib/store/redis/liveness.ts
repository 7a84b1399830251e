/**
 * How current the tracking connection keeps this process. Redis writes every invalidation for a
 * change it made before handling a PING ahead of that PING's answer, on the same connection: once
 * the answer to a PING sent at time `s` has come back, every change Redis made before `s` has
 * reached this process. So an answer from memory is current within `FRESH_MS` exactly when a PING
 * sent less than `FRESH_MS` ago has come back. This one test covers a slow link (a round trip of
 * `FRESH_MS` or more never passes it), a silent one (the newest PING outstanding is older still) and
 * an event loop too busy to read what arrived (an answer not yet read from the socket does not count).
 *
 * Why 250 ms and not less: a process under load reads its sockets in turns of the event loop, and a
 * turn that handles every request waiting (500 in flight: 50 connections × 10 pipelined, about
 * 70 ms of work) reads the PONG of a PING sent during it only in the next turn. With a bound of
 * 50 ms such a process never trusted the cache and read Redis for nearly every request (measured:
 * 3 answers in 4 from the slow path, 0.84 × Express). 250 ms covers two such turns; a process
 * slower than that reads Redis, as it would without the cache.
 *
 * PINGs follow use: a read that finds the newest answered PING `REFRESH_MS` old sends the next one
 * (one at a time), so a process answering requests keeps the cache on with a PING every 25 ms or
 * so (or one per turn of its event loop, if longer), at most 40 a second, and an idle one sends only
 * the keep-alive PING once a second. A read of a held value that finds the connection not fresh
 * waits for that PING (one round trip on our connection, instead of the reads on the app's) and
 * reads Redis only if it is not back in time.
 */
export const FRESH_MS = 250
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
   * is) has come back: false when it has not within FRESH_MS of being sent.
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

/** `send` sends one PING on the tracking connection; `now` is a monotonic clock in ms. */
export function liveness(send: () => Promise<unknown>, now: () => number): Liveness {
  /** Bumped by reset: the answer to a PING of an older connection counts for nothing. */
  let epoch = 0
  let confirmed = false
  /** When the newest PING that has come back was sent (or the setup that confirmed tracking began). */
  let back = -Infinity
  let since = now()
  let outstanding = false
  /** When the PING on its way was sent. */
  let sentAt = -Infinity
  /** Reads waiting for the PING on its way: told whether the connection is fresh once it is back or too late. */
  let waiting: Array<(fresh: boolean) => void> = []

  const isFresh = () => confirmed && now() - back < FRESH_MS
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
    outstanding = true
    sentAt = sent
    // A PING not back within FRESH_MS can make nothing fresh: its waiters read from Redis.
    const late = setTimeout(wake, FRESH_MS)
    late.unref()
    const settle = (answered: boolean) => {
      if (epoch !== at) return
      clearTimeout(late)
      outstanding = false
      if (answered) back = Math.max(back, sent)
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
      return age < FRESH_MS
    },
    freshSoon() {
      if (isFresh()) return Promise.resolve(true)
      ping()
      // A PING sent FRESH_MS ago or more can make nothing fresh when it comes back: its timer has
      // already woken the reads that waited for it, and a read arriving now must not wait for its
      // answer either (a silent link would hold it until the connection is replaced).
      if (!outstanding || now() - sentAt >= FRESH_MS) return Promise.resolve(false)
      return new Promise<boolean>((resolve) => waiting.push(resolve))
    },
    ping,
    confirm(sent: number) {
      confirmed = true
      back = Math.max(back, sent)
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
