import type { Context } from '../../core/context'
import type { HeldSignIn } from '../../core/sign-in/complete'
import { open, seal } from '../../infra/crypto/jwe'
import { randomToken } from '../../infra/crypto/random'
import { clearChunked, readChunked, writeChunked } from '../../infra/http/chunked-cookie'
import { isRecord } from '../../infra/util/object'
import { PENDING_SECONDS, PENDING_TRIES, type MfaRuntime } from './runtime'

/**
 * A sign-in whose first factor passed and whose second is due: sealed in this browser's
 * `auth.mfa-pending` cookie (chunked when the provider's tokens make it long) for 5 minutes. `id`
 * names it to the limiters that count its wrong codes and spend it once, on every instance.
 */
export interface Pending {
  readonly id: string
  readonly held: HeldSignIn
  /** Seconds since the epoch. */
  readonly exp: number
  /** Wrong codes so far, as this browser knows them (the limiters count them on every instance). */
  readonly tries: number
  /**
   * When the first factor passed, by the revocations' clock (a sign-in's date): a revocation of the
   * user's sessions since (sign-out everywhere, a password reset) ends the pending sign-in too.
   */
  readonly at: number
}

export async function holdPending(ctx: Context, runtime: MfaRuntime, held: HeldSignIn): Promise<Pending> {
  const at = await runtime.revocations.stamp(held.userId)
  const exp = Math.floor(Date.now() / 1000) + PENDING_SECONDS
  const pending: Pending = { id: randomToken(16), held, exp, tries: 0, at }
  writePending(ctx, runtime, pending)
  return pending
}

/** Seals the pending sign-in into this browser's cookie, for what is left of its 5 minutes. */
export function writePending(ctx: Context, runtime: MfaRuntime, pending: Pending): void {
  const left = Math.max(1, pending.exp - Math.floor(Date.now() / 1000))
  writeChunked(ctx.res, ctx.cookies, ctx.cookieSet.mfaPending, seal(runtime.keys.pending.current, pending), left)
}

/** This browser's pending sign-in, or null (none, expired, or not ours: every failure alike). */
export function readPending(ctx: Context, runtime: MfaRuntime): Pending | null {
  const opened = open(runtime.keys.pending, readChunked(ctx.cookies, ctx.cookieSet.mfaPending.name))
  if (opened === null) return null
  const { id, held, exp, tries, at } = opened
  if (typeof id !== 'string' || typeof exp !== 'number' || exp * 1000 <= Date.now() || !isHeld(held)) return null
  if (typeof at !== 'number') return null
  return { id, held, exp, tries: typeof tries === 'number' ? tries : PENDING_TRIES, at }
}

/**
 * This browser's pending sign-in while its user's sessions were not revoked since its first factor
 * (an attacker who had the password, and then a code, gets nothing after the user signed out
 * everywhere or reset the password); else null, and the cookie cleared.
 */
export async function livePending(ctx: Context, runtime: MfaRuntime): Promise<Pending | null> {
  const pending = readPending(ctx, runtime)
  if (pending === null) return null
  if ((await runtime.revocations.before(pending.held.userId, true)) <= pending.at) return pending
  endPending(ctx)
  return null
}

export function endPending(ctx: Context): void {
  clearChunked(ctx.res, ctx.cookies, ctx.cookieSet.mfaPending)
}

/** Sealed by us, so only its shape is checked: what resumeSignIn reads. */
function isHeld(value: unknown): value is HeldSignIn {
  return (
    isRecord(value) &&
    typeof value.providerId === 'string' &&
    typeof value.userId === 'string' &&
    isRecord(value.user) &&
    Array.isArray(value.amr) &&
    isRecord(value.input) &&
    isRecord(value.input.account) &&
    typeof value.input.callbackUrl === 'string'
  )
}
