import type { Context } from '../../core/context'
import { field, showPage } from '../../core/show-page'
import { resumeSignIn } from '../../core/sign-in/complete'
import { signInFirst } from '../accounts/routes'
import type { StoredFactor } from '../accounts/store'
import { enabledFactors, factorInfo, hasPasskey, spendRecovery, spendTotp } from './factor-store'
import { endPending, livePending, writePending, type Pending } from './pending'
import { PENDING_TRIES, type MfaRuntime } from './runtime'

/** The longest code read: a recovery code typed with spaces and dashes fits many times over. */
const CODE_MAX = 64

/**
 * `GET /mfa`: the second factor is due. The user's factors (a code field, a recovery code, a
 * passkey button); no pending sign-in in this browser (another browser, after 5 minutes, already
 * used): the sign-in page.
 */
export async function secondFactorPage(ctx: Context, runtime: MfaRuntime): Promise<void> {
  const pending = await livePending(ctx, runtime)
  if (pending === null) return startOver(ctx, runtime)
  const factors = await enabledFactors(runtime, pending.held.userId)
  // `always` and nothing enrolled yet: the authenticator app is set up first.
  if (factors.length === 0 && runtime.totp !== null && !(await hasPasskey(runtime, pending.held.userId)))
    return ctx.redirect(ctx.serviceUrl('/mfa/setup', { callbackUrl: pending.held.input.callbackUrl }))
  // A JSON client (and the page's passkey script) comes back here after a refusal: the page says so.
  const shown = ctx.query.get('error')
  const error = shown === 'wrong' || shown === 'passkey' ? shown : undefined
  await showSecondFactor(ctx, runtime, pending, factors, 200, error)
}

/**
 * `POST /mfa/verify` (CSRF checked): `factor` (`totp` or `recovery`) and `code`. The right code
 * makes the session the first factor began (its `amr` gains the second's, and `mfa`); a wrong one
 * shows the page again, and the fifth wrong one of a pending sign-in, or a user's tenth in 15
 * minutes on any instance, ends it. A pending sign-in makes one session at most.
 */
export async function verifySecondFactor(ctx: Context, runtime: MfaRuntime): Promise<void> {
  const pending = await livePending(ctx, runtime)
  if (pending === null) return startOver(ctx, runtime)
  const { userId } = pending.held
  const counted = await countAttempt(runtime, pending)
  const factors = await enabledFactors(runtime, userId)
  if (!counted) return ended(ctx, runtime, pending, factors)
  const kind = ctx.body.factor === 'recovery' ? 'recovery' : 'totp'
  const code = field(ctx, 'code', CODE_MAX) ?? ''
  const factor =
    kind === 'totp'
      ? await spendTotp(runtime, userId, factors, code)
      : await spendRecovery(runtime, userId, factors, code)
  if (factor === null) return wrongCode(ctx, runtime, pending, factors)
  // Spent once: a copy of this browser's cookie cannot make a second session with the next code.
  if ((await runtime.spent.consume(pending.id)) !== null) return startOver(ctx, runtime)
  endPending(ctx)
  if (factor.type === 'recovery') await recoveryUsed(ctx, runtime, userId, factor)
  ctx.svc.log(
    'info',
    'mfa.verified',
    `a second factor (${factor.type}) completed a sign-in`,
    ctx.svc.userForLog(userId),
  )
  await resumeSignIn(ctx, pending.held, ['otp', 'mfa'])
}

/**
 * A wrong code (or a passkey answer refused: `passkeyRefused` says why, for the log): the page
 * again, or after the fifth the pending sign-in ends. A JSON client gets `{ url }` of the page.
 */
export async function wrongCode(
  ctx: Context,
  runtime: MfaRuntime,
  pending: Pending,
  factors: StoredFactor[],
  passkeyRefused?: string,
): Promise<void> {
  const error = passkeyRefused === undefined ? 'wrong' : 'passkey'
  const why = passkeyRefused === undefined ? 'a wrong second-factor code' : `a passkey refused: ${passkeyRefused}`
  ctx.svc.log('info', 'mfa.failed', why, ctx.svc.userForLog(pending.held.userId))
  const { userId, providerId } = pending.held
  ctx.audit({ event: 'signin', userId, provider: providerId, failure: 'CredentialsSignin' })
  const tries = pending.tries + 1
  if (tries >= PENDING_TRIES) return ended(ctx, runtime, pending, factors)
  writePending(ctx, runtime, { ...pending, tries })
  if (ctx.jsonMode) return ctx.redirect(pageUrl(ctx, pending, error), 401)
  return showSecondFactor(ctx, runtime, pending, factors, 401, error)
}

/** Too many codes judged: the pending sign-in ends. */
export async function ended(
  ctx: Context,
  runtime: MfaRuntime,
  pending: Pending,
  factors: StoredFactor[],
): Promise<void> {
  endPending(ctx)
  ctx.svc.log(
    'warn',
    'mfa.ended',
    'too many second-factor codes: the pending sign-in ended',
    ctx.svc.userForLog(pending.held.userId),
  )
  if (ctx.jsonMode) return ctx.redirect(pageUrl(ctx, pending, 'ended'), 401)
  return showSecondFactor(ctx, runtime, pending, factors, 401, 'ended')
}

function pageUrl(ctx: Context, pending: Pending, error: 'wrong' | 'passkey' | 'ended'): string {
  return ctx.serviceUrl('/mfa', { callbackUrl: pending.held.input.callbackUrl, error })
}

async function recoveryUsed(ctx: Context, runtime: MfaRuntime, userId: string, factor: StoredFactor): Promise<void> {
  const { codesLeft } = factorInfo(factor)
  ctx.svc.log(
    'warn',
    'mfa.recovery_used',
    `a recovery code was used; ${codesLeft ?? 0} left`,
    ctx.svc.userForLog(userId),
  )
  await ctx.emit('recoveryCodeUsed', ctx.svc.config.events.recoveryCodeUsed, { userId, codesLeft: codesLeft ?? 0 })
}

async function showSecondFactor(
  ctx: Context,
  runtime: MfaRuntime,
  pending: Pending,
  factors: readonly StoredFactor[],
  status: number,
  error?: 'wrong' | 'passkey' | 'ended',
): Promise<void> {
  const passkey = error !== 'ended' && (await hasPasskey(runtime, pending.held.userId))
  await showPage(ctx, status, 'mfa', {
    base: ctx.base.href,
    action: ctx.serviceUrl('/mfa/verify'),
    csrfToken: ctx.csrfToken(),
    callbackUrl: pending.held.input.callbackUrl,
    factors: {
      totp: factors.some(({ type }) => type === 'totp'),
      recovery: factors.some(({ type }) => type === 'recovery'),
      passkey: passkey && {
        // With the callbackUrl: a pending sign-in gone by then sends to sign in again, and back.
        optionsUrl: ctx.serviceUrl('/mfa/passkey/options', { callbackUrl: pending.held.input.callbackUrl }),
        verifyUrl: ctx.serviceUrl('/mfa/passkey'),
      },
    },
    ...(error ? { error } : {}),
  })
}

/** No pending sign-in here (another browser, too late, spent): sign in again. */
export function startOver(ctx: Context, runtime: MfaRuntime): Promise<void> {
  return signInFirst(ctx, null, runtime.accounts, 'a second factor')
}

/**
 * Counts an answer (a code, a passkey) before it is judged, on every instance: a pending sign-in gets
 * 5 judged, a user 10 in 15 minutes over all of theirs. False past either: then none is judged.
 */
export async function countAttempt(runtime: MfaRuntime, pending: Pending): Promise<boolean> {
  const [mine, theirs] = await Promise.all([
    runtime.pendingAttempts.consume(pending.id),
    runtime.userAttempts.consume(pending.held.userId),
  ])
  return mine === null && theirs === null
}
