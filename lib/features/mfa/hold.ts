import type { SignInEvent } from '../../core/feature'
import type { HeldSignIn } from '../../core/sign-in/complete'
import { aalOf } from '../../core/session/record'
import { errorText } from '../../infra/logger'
import { factorKinds } from './factor-store'
import { holdPending } from './pending'
import type { MfaRuntime } from './runtime'

/**
 * After every first factor (the `hold` sign-in hook, for every provider): whether a second is due,
 * by `mfa.require`; if so no session is made: the sign-in is sealed in the pending cookie and the
 * browser sent to `{base}/mfa` (a JSON client gets `{ url }`). A first factor that proved two
 * already (a user-verified passkey: `mfa` among its methods) passes.
 */
export function holdForSecondFactor(runtime: MfaRuntime) {
  return async ({ ctx }: SignInEvent, held: HeldSignIn): Promise<boolean> => {
    if (aalOf(held.amr) === 2) return false
    const kinds = await factorKinds(runtime, held.userId)
    if (!(await due(runtime, held, kinds))) return false
    await holdPending(ctx, runtime, held)
    ctx.svc.log('info', 'mfa.pending', 'a first factor passed; the second is due', {
      ...ctx.svc.userForLog(held.userId),
      provider: held.providerId,
    })
    ctx.redirect(ctx.serviceUrl('/mfa', { callbackUrl: held.input.callbackUrl }))
    return true
  }
}

/** `mfa.require`, failing closed: a rule that throws or answers anything but a boolean asks. */
async function due(runtime: MfaRuntime, held: HeldSignIn, factors: readonly string[]): Promise<boolean> {
  const { require } = runtime
  if (require === 'enrolled') return factors.length > 0
  if (require === 'always') return true
  try {
    const answer: unknown = await require({
      userId: held.userId,
      provider: held.providerId,
      amr: [...held.amr],
      factors: [...factors],
    })
    return answer !== false
  } catch (error) {
    runtime.accounts.log(
      'warn',
      'callback.error',
      `mfa.require threw, so a second factor is asked: ${errorText(error)}`,
    )
    return true
  }
}
