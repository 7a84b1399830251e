import { performance } from 'node:perf_hooks'
import type { PasswordRuntime } from './runtime'

export interface Verdict {
  readonly ok: boolean
  /** Right, and the hash should be made again at the current parameters. */
  readonly rehash: boolean
}

const NO: Verdict = Object.freeze({ ok: false, rehash: false })

/**
 * One password judged the way every route judges one: exactly one verification through the hashing
 * gate, against `stored` or, when there is none to check (an unknown identifier, a slowed attempt),
 * a dummy hash at the current parameters; a refusal held to the floor (./refusal-floor.ts). Null: hashing is busy
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
  // An imported hash's own verification took the time the others are held to: it waits no more.
  const imported = stored !== null && !runtime.hashing.isCurrent(stored)
  if (verdict !== null && !verdict.ok && !imported) await runtime.floor.wait(started)
  return verdict
}
