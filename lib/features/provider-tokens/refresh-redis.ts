import { AuthError } from '../../infra/errors'
import type { KeyRing } from '../../infra/crypto/keys'
import type { TokenVault, StoredTokens } from './redis-vault'
import { fingerprint, openTokens, sealTokens, type TokenSet } from './token-set'

/**
 * Exactly one refresh of a session's tokens across every instance sharing Redis:
 * - the refresh runs under the lock `tok:{ref}:lock` (SET NX PX, `lockMs`: longer than the
 *   provider's deadline), taken only by a caller whose set is still the stored one;
 * - the others wait for the change to be published (no polling), or for the lock's deadline,
 *   after which one of them takes the lock over (its holder died);
 * - the new set is written only over the set it replaces (compare-and-write on the fingerprint);
 * - a caller that still holds a set already replaced (another tab, a slow instance, a session read
 *   just before the rotation) gets the stored successor and spends nothing.
 * Redis not answering is ServiceUnavailable: nobody refreshes without the lock.
 */

/** How long a refresh that failed for now keeps the others from asking the provider again. */
const FAILED_FOR_NOW_MS = 2000

/**
 * How long a refresh that was sent and got no answer in time (the provider may have spent the
 * refresh token, docs/provider-tokens.md) keeps everyone from sending it again: a provider's reuse
 * grace period, when it has one, is meant to cover the retry after it.
 */
export const UNCERTAIN_MS = 30_000

/** What the callers get while a refresh that got no answer is held. */
export const heldUncertain = Object.freeze({
  ok: false as const,
  final: false,
  uncertain: true as const,
  reason: `the last refresh was sent and got no answer in time (the provider may have spent the refresh token): not sent again within ${UNCERTAIN_MS / 1000} s`,
})

export interface Stored {
  readonly set: TokenSet
  readonly fp: string
  readonly failed: boolean
}

/** What a refresh at the provider came to (lib/features/oauth/refresh.ts, seen from here). */
export type Exchanged = { ok: true; set: TokenSet } | { ok: false; final: boolean; reason: string; uncertain?: true }

export interface RedisRefreshDeps {
  readonly vault: TokenVault
  readonly ring: KeyRing
  /** How long a lock holds: the provider's deadline and the write, with room to spare. */
  readonly lockMs: number
  /**
   * Asks the provider for the successor of `set` (and tells the app's events and the log), done
   * before `deadline` (ms since the epoch): when the lock ends.
   */
  exchange(set: TokenSet, deadline: number): Promise<Exchanged>
}

export function openStored(ring: KeyRing, stored: StoredTokens | null): Stored | null {
  const set = stored && openTokens(ring, stored.sealed)
  return stored && set ? { set, fp: stored.fp, failed: stored.failed } : null
}

export function redisRefresher(deps: RedisRefreshDeps) {
  const { vault, ring, lockMs } = deps
  /** Per ref and replaced set, the one run of this process: concurrent callers share it. */
  const running = new Map<string, Promise<Stored | null>>()
  /** Always from Redis: a refresh is decided on nothing older. */
  const read = async (ref: string) => openStored(ring, await vault.read(ref, true))

  /**
   * Under the lock, with `current` still the stored set: asks the provider, writes the successor.
   * The lock is renewed meanwhile (for at most one more `lockMs`): a live holder whose answer or
   * write is slow keeps it, and only a frozen or dead one loses it to a takeover.
   */
  async function refreshHeld(ref: string, current: Stored, owner: string, lockEnd: number): Promise<Stored | null> {
    const renewal = renewing(vault, lockMs, ref, owner, lockEnd + lockMs)
    try {
      return await exchangeHeld(ref, current, owner, lockEnd)
    } finally {
      clearInterval(renewal)
    }
  }

  async function exchangeHeld(ref: string, current: Stored, owner: string, lockEnd: number): Promise<Stored | null> {
    const answer = await deps.exchange(current.set, lockEnd).catch((error: unknown) => {
      void vault.failForNow(ref, owner, FAILED_FOR_NOW_MS).catch(() => undefined)
      throw error
    })
    if (answer.ok) {
      const fp = fingerprint(answer.set)
      if (await vault.replace(ref, current.fp, sealTokens(ring, answer.set), fp, owner))
        return { set: answer.set, fp, failed: false }
      // Our lock ran out and another write won, or the session ended meanwhile: what is stored stands.
      return read(ref)
    }
    if (answer.final) {
      await vault.fail(ref, current.fp, owner)
      return { ...current, failed: true }
    }
    if (answer.uncertain) await vault.failForNow(ref, owner, UNCERTAIN_MS, 'uncertain')
    else await vault.failForNow(ref, owner, FAILED_FOR_NOW_MS)
    throw new AuthError('ServiceUnavailable', `the provider's token endpoint could not refresh: ${answer.reason}`)
  }

  /** Until the stored set is no longer `staleFp` (or failed, or gone), within `deadline` (ms since the epoch). */
  async function settle(ref: string, staleFp: string, deadline: number): Promise<Stored | null> {
    await vault.listen()
    for (;;) {
      if (Date.now() >= deadline)
        throw new AuthError('ServiceUnavailable', 'the refresh of the provider tokens did not finish in time')
      const watch = vault.watch(ref)
      try {
        const seen = await read(ref)
        if (!seen || seen.failed || seen.fp !== staleFp) return seen
        // Counted from before the lock is asked for: it surely holds until then.
        const lockEnd = Date.now() + lockMs
        const owner = await vault.lock(ref, lockMs)
        if (owner !== null) {
          // Read again under the lock: the previous holder may have written just before it let go.
          const current = await read(ref)
          if (current && !current.failed && current.fp === staleFp)
            return await refreshHeld(ref, current, owner, lockEnd)
          await vault.release(ref, owner)
          return current
        }
        const lock = await vault.lockState(ref)
        if (lock.uncertain) throw new AuthError('ServiceUnavailable', heldUncertain.reason)
        if (lock.failed) throw new AuthError('ServiceUnavailable', 'the provider could not refresh moments ago')
        // Woken by the holder's write; else at the lock's end, when it can be taken over.
        if (lock.left > 0) await watch.wait(Math.min(lock.left + 10, deadline - Date.now()))
      } finally {
        watch.stop()
      }
    }
  }

  return Object.freeze({
    /** The stored set, from memory when Redis's client-side caching vouches for it. */
    read: async (ref: string) => openStored(ring, await vault.read(ref)),
    /** The successor of the set `staleFp` of `ref`, refreshed once whatever the concurrency. */
    successor(ref: string, staleFp: string): Promise<Stored | null> {
      const key = `${ref} ${staleFp}`
      let run = running.get(key)
      if (!run) {
        run = settle(ref, staleFp, Date.now() + 2 * lockMs + 1000).finally(() => running.delete(key))
        running.set(key, run)
      }
      return run
    },
  })
}

/** Renews `owner`'s lock of `ref` every third of `lockMs`, until `until` (ms since the epoch). */
function renewing(vault: TokenVault, lockMs: number, ref: string, owner: string, until: number): NodeJS.Timeout {
  const timer = setInterval(
    () => {
      if (Date.now() + lockMs / 3 >= until) return clearInterval(timer)
      void vault.renew(ref, owner, lockMs).catch(() => undefined)
    },
    Math.max(10, Math.floor(lockMs / 3)),
  )
  timer.unref()
  return timer
}
