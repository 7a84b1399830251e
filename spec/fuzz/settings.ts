import fc from 'fast-check'

/**
 * How hard the fuzz specs push. CI runs a small, fixed number of cases per property so that the
 * whole folder stays well under a minute in `npm test`; `npm run fuzz` raises FUZZ_RUNS. The seed is
 * fixed unless FUZZ_SEED says otherwise, so a red CI run is the same run on every machine: fast-check
 * prints the seed, the path and the shrunk counterexample, and FUZZ_SEED=<seed> replays it.
 */
export const RUNS = positive(process.env.FUZZ_RUNS, 100)
export const SEED = integer(process.env.FUZZ_SEED, 20261123)

/**
 * fast-check's parameters for one property. `share` scales the runs for a property whose cases cost
 * several round trips (a whole OAuth flow), so that each property takes about the same time.
 */
export function params<T>(share = 1): fc.Parameters<T> {
  return { numRuns: Math.max(1, Math.round(RUNS * share)), seed: SEED, verbose: fc.VerbosityLevel.Verbose }
}

/**
 * A jest timeout that grows with the runs: 100 ms a case (they take 10 to 50 on an idle machine,
 * a live e-mail link or IdP sign-in included), never under 30 s.
 */
export function timeoutFor(share = 1): number {
  return Math.max(30_000, Math.round(RUNS * share * 100))
}

function positive(value: string | undefined, fallback: number): number {
  const parsed = Number(value)
  return Number.isInteger(parsed) && parsed > 0 ? parsed : fallback
}

function integer(value: string | undefined, fallback: number): number {
  const parsed = Number(value)
  return value !== undefined && value !== '' && Number.isInteger(parsed) ? parsed : fallback
}
