import { sendTimes, until } from '../email/timing'

/**
 * A refusal answers no sooner than verifying an imported hash takes. A hash not at the current
 * parameters (bcrypt at cost 10 from a user table moved here: about five times argon2id's time)
 * would otherwise tell an account that has one from an unknown identifier, whose dummy verification
 * costs what a current hash costs. So every refusal waits until as long has passed, since its
 * verification started, as a time drawn from the spread of the last such verifications in this
 * process (the last 8; the e-mail provider's draw, ../email/timing.ts: between two recorded times, never one of
 * them), at most `cap` ms. The wait is a timer, not work. Until a process has verified such a hash
 * there is no floor: an app whose hashes are all current pays nothing.
 */
export interface RefusalFloor {
  /** A hash not at the current parameters took `ms` to verify. */
  observe(ms: number): void
  /** Resolves once a drawn floor has passed since `startedAt` (performance.now()). */
  wait(startedAt: number): Promise<void>
}

export function refusalFloor(cap = 1000): RefusalFloor {
  // The last 8: a machine's load moves verification times, and the floor must follow it closely.
  const times = sendTimes(cap, 8)
  let seen = false
  return Object.freeze({
    observe(ms: number) {
      seen = true
      times.accepted(ms)
    },
    async wait(startedAt: number) {
      if (seen) await until(startedAt, times.draw())
    },
  })
}
