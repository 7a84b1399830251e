import type { Context } from '../../core/context'
import { resumeSignIn } from '../../core/sign-in/complete'
import { sendJson } from '../../infra/http/reply'
import type { HeldStep, PasskeySecondStep } from '../passkey/second-step'
import { enabledFactors } from './factor-store'
import { endPending, livePending, type Pending } from './pending'
import type { MfaRuntime } from './runtime'
import { countAttempt, ended, startOver, wrongCode } from './verify'

/**
 * A passkey as the second factor, from the `{base}/mfa` page's button (views/passkey.js):
 * `GET /mfa/passkey/options` starts a ceremony for this browser's pending sign-in, limited to its
 * user's passkeys; `POST /mfa/passkey` (CSRF checked) with the browser's answer (`data`) makes the
 * session. Every answer is judged as a code is: counted first, for the pending sign-in and for the
 * user on every instance; a refused one counts as a wrong code.
 */
export async function passkeyOptions(ctx: Context, runtime: MfaRuntime, step: PasskeySecondStep): Promise<void> {
  const pending = await livePending(ctx, runtime)
  if (pending === null) return startOver(ctx, runtime)
  if (!(await step.has(pending.held.userId)))
    return sendJson(ctx.res, 404, JSON.stringify({ error: 'NoPasskey' }), true)
  const options = await step.start(ctx, heldStep(runtime, pending))
  sendJson(ctx.res, 200, JSON.stringify({ options }), true)
}

export async function verifyPasskey(ctx: Context, runtime: MfaRuntime, step: PasskeySecondStep): Promise<void> {
  const pending = await livePending(ctx, runtime)
  if (pending === null) return startOver(ctx, runtime)
  const { userId } = pending.held
  // Counted before judging, as codes are: past either limit, no answer is judged.
  if (!(await countAttempt(runtime, pending)))
    return ended(ctx, runtime, pending, await enabledFactors(runtime, userId))
  const result = await step.finish(ctx, heldStep(runtime, pending))
  if (!result.ok) return wrongCode(ctx, runtime, pending, await enabledFactors(runtime, userId), result.reason)
  // Spent once: a copy of this browser's cookie cannot make a second session.
  if ((await runtime.spent.consume(pending.id)) !== null) return startOver(ctx, runtime)
  endPending(ctx)
  ctx.svc.log('info', 'mfa.verified', 'a second factor (passkey) completed a sign-in', ctx.svc.userForLog(userId))
  await resumeSignIn(ctx, pending.held, result.amr)
}

/** The ceremony's binding: this pending sign-in and its user; a passkey first factor asks for user verification. */
function heldStep(runtime: MfaRuntime, pending: Pending): HeldStep {
  return {
    id: pending.id,
    userId: pending.held.userId,
    verifyUser: pending.held.providerId === runtime.passkey,
  }
}
