import { performance } from 'node:perf_hooks'
import type { PasswordRuntime } from './runtime'

/**
 * A refusal answers no sooner than verifying an imported hash takes. A hash not at the current
 * parameters (bcrypt cost 10 from a user table moved here: about five times argon2id's time) would
 * otherwise tell an account that has one from an unknown identifier, whose dummy verification costs
 * what a current hash costs. The floor follows the verifications of such hashes this process has
 * made: up at once to a slower one, down slowly (1/32 of the way a time) to faster ones, never past
 * `cap` ms. The wait is a timer, not work. Until a process has verified one, there is no floor: an
 * app whose hashes are all current pays nothing.
 */
export interface RefusalFloor {
  /** A hash not at the current parameters took `ms` to verify. */
  observe(ms: number): void
  /** Resolves once `floor` ms have passed since `startedAt` (performance.now()). */
  wait(startedAt: number): Promise<void>
}

export function refusalFloor(cap = 1000): RefusalFloor {
  let floor = 0
  return Object.freeze({
    observe(ms: number) {
      const seen = Math.min(Math.max(ms, 0), cap)
      floor = seen >= floor ? seen : floor + (seen - floor) / 32
    },
    async wait(startedAt: number) {
      const left = floor - (performance.now() - startedAt)
      if (left >= 1) await new Promise<void>((resolve) => setTimeout(resolve, left))
    },
  })
}

export interface Verdict {
  readonly ok: boolean
  /** Right, and the hash should be made again at the current parameters. */
  readonly rehash: boolean
}

const NO: Verdict = Object.freeze({ ok: false, rehash: false })

/**
 * One password judged the way every route judges one: exactly one verification through the hashing
 * gate, against `stored` or, when there is none to check (an unknown identifier, a slowed attempt),
 * a dummy hash at the current parameters; a refusal held to the floor. Null: hashing is busy
 * (nothing was judged).
 */
export async function judgePassword(
  runtime: PasswordRuntime,
  stored: string | null,
  password: string,
): Promise<Verdict | null> {
  let started = 0
  const verdict = await runtime.gate.run(async () => {
    started = performance.now()
    if (stored === null) {
      await runtime.hashing.dummy(password)
      return NO
    }
    const result = await runtime.hashing.verify(stored, password)
    if (!runtime.hashing.isCurrent(stored)) runtime.floor.observe(performance.now() - started)
    return result
  })
  if (verdict !== null && !verdict.ok) await runtime.floor.wait(started)
  return verdict
}
