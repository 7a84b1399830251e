import type { Context } from '../../core/context'
import { verifyAuthentication, responseOf, type Expected } from './ceremony'
import type { PasskeyRuntime } from './runtime'
import { parseJsonObject } from '../../infra/util/json'
import type { StoredPasskey } from './store'
import { completeSignIn } from '../../core/sign-in/complete'
import { refuse, relyingParty, takeCeremony } from './challenge'
import { addPasskey } from './register'

/** The browser's WebAuthn answer is a few KB; anything much larger is not one. */
const MAX_DATA_LENGTH = 32 * 1024

/**
 * POST /callback/:provider for a passkey, as NextAuth v5's client posts it: `action`, `data` (the
 * JSON of the browser's answer), `csrfToken`, `callbackUrl`. The router checks the CSRF token first
 * (a refusal spends nothing: the route's policy, ./index.ts); then the browser's ceremony is spent, whatever happens next, so an
 * answer is tried once. Every refusal looks the same: `CredentialsSignin`, nothing created.
 */
export async function finishPasskey(ctx: Context, runtime: PasskeyRuntime): Promise<void> {
  const ceremony = await takeCeremony(ctx, runtime)
  const text = ctx.param('data')
  const data = text !== null && text.length <= MAX_DATA_LENGTH ? parseJsonObject(text) : null
  const answer = responseOf(data)
  if (!ceremony || !answer || ctx.param('action') !== ceremony.action)
    return refuse(ctx, ceremony ? 'a malformed answer' : 'no ceremony in progress for this browser')
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
  data: unknown,
  expected: Expected,
): Promise<void> {
  const { id, response } = responseOf(data)!
  const found: unknown = await runtime.store.get(id)
  if (!found) return refuse(ctx, 'an unknown passkey')
  // The app's own store may answer anything: only a whole record of this credential signs in.
  if (!isStoredPasskey(found, id)) return refuse(ctx, 'a passkey record the store answered incomplete')
  const passkey = found
  // A discoverable credential names its user: it must be the one the passkey was added for.
  if (response.userHandle !== undefined && response.userHandle !== passkey.userHandle)
    return refuse(ctx, 'a passkey answering for another user')
  const result = await verifyAuthentication(data, passkey, expected)
  if (!result.ok) {
    if ('counter' in result) {
      const message = {
        userId: passkey.userId,
        passkeyId: id,
        storedCounter: passkey.counter,
        receivedCounter: result.counter,
      }
      ctx.svc.log('warn', 'passkey.cloned', 'a passkey signature counter went backwards: the sign-in was refused', {
        storedCounter: message.storedCounter,
        receivedCounter: message.receivedCounter,
      })
      await ctx.emit('passkeyCloned', ctx.svc.config.events.passkeyCloned, message)
    }
    return refuse(
      ctx,
      result.reason === 'counter' ? 'a signature counter that did not go up' : 'a signature that does not verify',
    )
  }
  await runtime.store.update(id, { counter: result.counter, backedUp: result.backedUp, lastUsedAt: Date.now() })
  await completeSignIn(ctx, {
    user: { id: passkey.userId, ...passkey.user },
    account: { provider: runtime.provider.id, type: 'webauthn', providerAccountId: id },
    userId: passkey.userId,
    userKnown: true,
    callbackUrl: await ctx.callbackTarget(),
    amr: passkeyMethods(result),
  })
}

/** The fields a sign-in reads, of the types it reads them as (fail closed on anything else). */
function isStoredPasskey(value: unknown, id: string): value is StoredPasskey {
  if (typeof value !== 'object' || value === null) return false
  const passkey = value as Partial<Record<keyof StoredPasskey, unknown>>
  const text = (field: unknown) => typeof field === 'string' && field !== ''
  return (
    passkey.id === id &&
    text(passkey.userId) &&
    text(passkey.userHandle) &&
    text(passkey.publicKey) &&
    Number.isSafeInteger(passkey.counter) &&
    (passkey.counter as number) >= 0 &&
    typeof passkey.user === 'object' &&
    passkey.user !== null
  )
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
