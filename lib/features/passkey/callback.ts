import type { Context } from '../../core/context'
import type { Expected } from './ceremony'
import type { PasskeyRuntime } from './runtime'
import { checkAnswer, readAnswer } from './answer'
import { completeSignIn } from '../../core/sign-in/complete'
import { refuse, relyingParty, takeCeremony } from './challenge'
import { addPasskey } from './register'

/**
 * POST /callback/:provider for a passkey, as NextAuth v5's client posts it: `action`, `data` (the
 * JSON of the browser's answer), `csrfToken`, `callbackUrl`. The router checks the CSRF token first
 * (a refusal spends nothing: the route's policy, ./index.ts); then the browser's ceremony is spent, whatever happens next, so an
 * answer is tried once. Every refusal looks the same: `CredentialsSignin`, nothing created.
 */
export async function finishPasskey(ctx: Context, runtime: PasskeyRuntime): Promise<void> {
  const ceremony = await takeCeremony(ctx, runtime)
  const data = readAnswer(ctx)
  // A second step's ceremony (./second-step.ts) answers for a held sign-in only, never here.
  if (!ceremony || ceremony.action === 'second-step') return refuse(ctx, 'no ceremony in progress for this browser')
  if (data === null || ctx.param('action') !== ceremony.action) return refuse(ctx, 'a malformed answer')
  const expected: Expected = {
    challenge: ceremony.challenge,
    rp: relyingParty(ctx, runtime),
    userVerification: runtime.provider.userVerification,
  }
  if (ceremony.action === 'register') return addPasskey(ctx, runtime, ceremony, data, expected)
  await signInWithPasskey(ctx, runtime, data, expected)
}

async function signInWithPasskey(
  ctx: Context,
  runtime: PasskeyRuntime,
  data: Record<string, unknown>,
  expected: Expected,
): Promise<void> {
  const checked = await checkAnswer(ctx, runtime, data, expected)
  if (!checked.ok) return refuse(ctx, checked.reason)
  const { passkey, result } = checked
  await completeSignIn(ctx, {
    user: { id: passkey.userId, ...passkey.user },
    account: { provider: runtime.provider.id, type: 'webauthn', providerAccountId: passkey.id },
    userId: passkey.userId,
    userKnown: true,
    callbackUrl: await ctx.callbackTarget(),
    amr: passkeyMethods(result),
  })
}

/**
 * What a passkey sign-in proved (RFC 8176): the key (`swk` for a synced passkey, `hwk` for one held
 * by a device), and with user verification (`user`) two factors at once (`mfa`): the key owned,
 * and the PIN or biometric that unlocked it.
 */
export function passkeyMethods(result: { userVerified: boolean; multiDevice: boolean }): string[] {
  const key = result.multiDevice ? 'swk' : 'hwk'
  return result.userVerified ? [key, 'user', 'mfa'] : [key]
}
