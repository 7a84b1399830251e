import type { Context } from '../../core/context'
import { aalOf } from '../../core/session/record'
import { digest } from '../../infra/crypto/mac'
import type { SessionRecord } from '../../infra/config/types'
import { signInFirst } from '../accounts/routes'
import type { StoredFactor } from '../accounts/store'
import { enabledFactors, hasPasskey } from './factor-store'
import { livePending, type Pending } from './pending'
import type { MfaRuntime } from './runtime'

/**
 * Who may change a user's factors: a signed-in user whose proof is recent (within
 * `accounts.linkMaxAge` of their last sign-in or re-authentication) and, once a factor is enrolled,
 * made with a second factor (a copied cookie of a password-only session adds nothing); or, with
 * `require: 'always'`, a pending sign-in whose user has no factor yet, a passkey of `mfa.factors`
 * included (enrolment on the way in).
 */
export type Enroller =
  | {
      readonly kind: 'session'
      readonly userId: string
      readonly record: SessionRecord
      readonly factors: StoredFactor[]
    }
  | { readonly kind: 'pending'; readonly userId: string; readonly pending: Pending; readonly factors: StoredFactor[] }

/** The enroller, or null after answering (sign in, or again). */
export async function enroller(ctx: Context, runtime: MfaRuntime, step: string): Promise<Enroller | null> {
  const record = await ctx.svc.sessions.read(ctx.sessionCookie())
  if (record === null) {
    const pending = await livePending(ctx, runtime)
    if (pending !== null) {
      const factors = await enabledFactors(runtime, pending.held.userId)
      // A user with a passkey answers with it: a first factor alone sets up no app of its own.
      if (factors.length === 0 && !(await hasPasskey(runtime, pending.held.userId)))
        return { kind: 'pending', userId: pending.held.userId, pending, factors }
    }
    await signInFirst(ctx, null, runtime.accounts, step)
    return null
  }
  const factors = await enabledFactors(runtime, record.userId)
  const authTime = record.authTime ?? record.createdAt
  const recent = Date.now() / 1000 - authTime <= runtime.accounts.linkMaxAge
  const enrolled = factors.length > 0 || (await hasPasskey(runtime, record.userId))
  if (!recent || (enrolled && aalOf(record.amr) < 2)) {
    await signInFirst(ctx, record, runtime.accounts, step)
    return null
  }
  return { kind: 'session', userId: record.userId, record, factors }
}

/**
 * Who is setting up an app, as the waiting factor keeps it: this session (a digest of its token) or
 * this pending sign-in. Another session of the same user (a stolen cookie, an attacker who knows
 * the password) neither sees the secret being set up nor confirms it.
 */
export function enrolmentOwner(ctx: Context, who: Enroller): string {
  if (who.kind === 'pending') return `p:${who.pending.id}`
  return `s:${digest(ctx.sessionCookie().token() ?? '')}`
}
