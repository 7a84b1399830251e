import type { Context } from '../../core/context'
import { verifyAuthentication, responseOf, type AuthenticationResult, type Expected } from './ceremony'
import type { PasskeyRuntime } from './runtime'
import type { StoredPasskey } from './store'
import { parseJsonObject } from '../../infra/util/json'

/** The browser's WebAuthn answer is a few KB; anything much larger is not one. */
const MAX_DATA_LENGTH = 32 * 1024

/** The request's `data`, the JSON of the browser's answer, when it is shaped like one; else null. */
export function readAnswer(ctx: Context): Record<string, unknown> | null {
  const text = ctx.param('data')
  const data = text !== null && text.length <= MAX_DATA_LENGTH ? parseJsonObject(text) : null
  return responseOf(data) === null ? null : data
}

/** What an authentication answer proved: the passkey and its checks, or why it was refused (for the log). */
export type CheckedAnswer =
  | { readonly ok: true; readonly passkey: StoredPasskey; readonly result: AuthenticationResult & { ok: true } }
  | { readonly ok: false; readonly reason: string }

/**
 * An authentication answer checked against the passkey it names, as a sign-in and a second step
 * both check it: the stored record whole, the user handle its own, `owner` (a second step: the held
 * user) before any signature is checked, the signature over this ceremony's challenge, and the
 * counter, which then goes up in the store. A counter that went back raises `passkeyCloned`.
 */
export async function checkAnswer(
  ctx: Context,
  runtime: PasskeyRuntime,
  data: Record<string, unknown>,
  expected: Expected,
  owner?: string,
): Promise<CheckedAnswer> {
  const { id, response } = responseOf(data)!
  const found: unknown = await runtime.store.get(id)
  if (!found) return { ok: false, reason: 'an unknown passkey' }
  // The app's own store may answer anything: only a whole record of this credential signs in.
  if (!isStoredPasskey(found, id)) return { ok: false, reason: 'a passkey record the store answered incomplete' }
  const passkey = found
  // A discoverable credential names its user: it must be the one the passkey was added for.
  if (response.userHandle !== undefined && !sameHandle(response.userHandle, passkey.userHandle))
    return { ok: false, reason: 'a passkey answering for another user' }
  if (owner !== undefined && passkey.userId !== owner)
    return { ok: false, reason: "another user's passkey answering a second step" }
  const result = await verifyAuthentication(data, passkey, expected)
  if (!result.ok) {
    if ('counter' in result) await cloned(ctx, passkey, result.counter)
    return {
      ok: false,
      reason:
        result.reason === 'counter' ? 'a signature counter that did not go up' : 'a signature that does not verify',
    }
  }
  await runtime.store.update(id, { counter: result.counter, backedUp: result.backedUp, lastUsedAt: Date.now() })
  return { ok: true, passkey, result }
}

async function cloned(ctx: Context, passkey: StoredPasskey, receivedCounter: number): Promise<void> {
  const message = { userId: passkey.userId, passkeyId: passkey.id, storedCounter: passkey.counter, receivedCounter }
  ctx.svc.log('warn', 'passkey.cloned', 'a passkey signature counter went backwards: the sign-in was refused', {
    storedCounter: message.storedCounter,
    receivedCounter: message.receivedCounter,
  })
  await ctx.emit('passkeyCloned', ctx.svc.config.events.passkeyCloned, message)
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
 * Whether an answer's user handle is the passkey's. A passkey added through NextAuth v5's own client
 * (`next-auth/webauthn`, whose browser library writes the options' `user.id` as its UTF-8 text, not
 * the bytes it encodes) gives that text's bytes back: our pages' script sends them base64url, which
 * is the handle as that client wrote it, and is the same user. (The handle is not signed: this is a
 * check of the store's consistency, not of the signature, which binds the answer to the passkey.)
 */
function sameHandle(answered: unknown, stored: unknown): boolean {
  if (answered === stored) return true
  return typeof stored === 'string' && answered === Buffer.from(stored, 'utf8').toString('base64url')
}
