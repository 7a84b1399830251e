import { boundedCache } from '../../infra/util/cache'
import { heldUncertain, UNCERTAIN_MS, type Exchanged } from './refresh-redis'
import { fingerprint, type TokenSet } from './token-set'

/**
 * Without Redis (one process): the tokens travel sealed in the session itself, so a request that
 * read the session before a refresh (another tab, a request in flight) still holds the old set.
 * Concurrent refreshes of one set share one exchange; afterwards its successor is remembered for
 * GRACE_MS, and a caller bringing the old set gets it instead of spending the old refresh token.
 * A refresh sent that got no answer in time (the provider may have spent the refresh token) is not
 * sent again for UNCERTAIN_MS: callers bringing that set fail for now meanwhile. A successor whose
 * response went while it was being refreshed is parked (an LRU of PARKED_MAX) as long as the
 * session can live, not just GRACE_MS: the browser brings the old set again with its next request.
 */
export const GRACE_MS = 30_000

/** At most this many successors kept for a response sent during their refresh (`park`). */
const PARKED_MAX = 10_000

export function inlineRefresher(exchange: (set: TokenSet) => Promise<Exchanged>, parkMs: number) {
  const running = new Map<string, Promise<Exchanged>>()
  const successors = boundedCache<string, Exchanged & { ok: true }>(10_000, GRACE_MS)
  /** Failed for good: the old set must not be tried again either (a copy of the session would). */
  const failures = boundedCache<string, Exchanged & { ok: false }>(10_000, GRACE_MS)
  const uncertain = boundedCache<string, Exchanged & { ok: false }>(10_000, UNCERTAIN_MS)
  /** Successors that could not reach the browser (the response went during the refresh): kept for `parkMs`. */
  const parked = boundedCache<string, Exchanged & { ok: true }>(PARKED_MAX, parkMs)

  return Object.freeze({
    successor(set: TokenSet): Promise<Exchanged> {
      const fp = fingerprint(set)
      const known = successors.get(fp) ?? parked.get(fp) ?? failures.get(fp) ?? uncertain.get(fp)
      if (known) return Promise.resolve(known)
      let run = running.get(fp)
      if (!run) {
        run = exchange(set)
          .then((answer) => {
            if (answer.ok) successors.set(fp, answer)
            else if (answer.final) failures.set(fp, answer)
            else if (answer.uncertain) uncertain.set(fp, heldUncertain)
            return answer
          })
          .finally(() => running.delete(fp))
        running.set(fp, run)
      }
      return run
    },
    /**
     * `set` was refreshed to `successor` but the response went meanwhile: the browser still holds
     * `set`, and the next request bringing it gets `successor` (keyed as the grace window is: by the
     * old set's fingerprint, never by anything the browser chooses) for as long as its session lives.
     */
    park(set: TokenSet, successor: TokenSet): void {
      parked.set(fingerprint(set), { ok: true, set: successor })
    },
  })
}
