import { randomBuffer } from '../../infra/crypto/random'

/**
 * How long an accepted send takes, so that a refused recipient's answer takes as long. A mail
 * server that refuses unknown recipients does so at RCPT TO, before the message is even sent, so
 * the refusal comes back sooner than an accepted send (DATA, the message, the server's scanning):
 * answered at once, its time would tell which addresses exist. So the answer to a refusal waits
 * until as long has passed, since its send started, as a time drawn afresh from the spread of the
 * last accepted sends: a random point between two of them picked at random, moved by up to 5 %
 * either way. Never one of the recorded times itself: a caller who timed their own accepted sends
 * (and so knows the recorded times) must not recognise a refusal by an exact match. Never longer
 * than the send deadline (no accepted send takes longer). Before the first accepted send, it waits
 * between half a second and a second and a half (about the time of a send with TLS over the
 * network), drawn at random, or the whole deadline when that is shorter.
 */
export interface SendTimes {
  /** Keeps the time, in milliseconds, an accepted send took. */
  accepted(ms: number): void
  /** Milliseconds a refused send should seem to have taken. */
  draw(): number
}

const KEPT = 32
const COLD_START_MS = { low: 500, high: 1500 }
const WOBBLE = 0.05

/** A random number in [0, 1), with 32 bits of the package's one source of randomness. */
function fraction(): number {
  return randomBuffer(4).readUInt32BE(0) / 2 ** 32
}

export function sendTimes(deadline: number, keep = KEPT): SendTimes {
  // The last `keep` accepted sends of this provider in this process, oldest overwritten first.
  const kept: number[] = []
  let next = 0
  return {
    accepted(ms) {
      kept[next] = Math.min(Math.max(ms, 0), deadline)
      next = (next + 1) % keep
    },
    draw() {
      if (kept.length === 0)
        return Math.min(COLD_START_MS.low + fraction() * (COLD_START_MS.high - COLD_START_MS.low), deadline)
      const pick = () => kept[Math.floor(fraction() * kept.length)]!
      const a = pick()
      const between = a + fraction() * (pick() - a)
      return Math.min(Math.max(between * (1 + WOBBLE * (2 * fraction() - 1)), 0), deadline)
    },
  }
}

/**
 * Resolves once `ms` have passed since `since` (a `performance.now()` time); at once when they have.
 * Checked again on waking: a timer counts from the event loop's cached time, which a busy loop
 * leaves behind, so it can fire early.
 */
export async function until(since: number, ms: number): Promise<void> {
  for (let left = since + ms - performance.now(); left > 0; left = since + ms - performance.now()) {
    await new Promise((resolve) => setTimeout(resolve, Math.ceil(left)))
  }
}
