import type { SessionRecord } from '../../infra/config/types'
import type { Context } from '../../core/context'
import { verifyRegistration, type Expected } from './ceremony'
import { modelOf } from './aaguid'
import type { PasskeyRuntime } from './runtime'
import type { StoredPasskey } from './store'
import { completeSignIn } from '../../core/sign-in/complete'
import { refuse, type Ceremony } from './challenge'
import { assured } from '../../core/assurance'
import { logSignInAgain, signInAgainUrl, signedInRecently } from './recent'

/**
 * A registration answer: a signed-in user adds a passkey (the same user must still be signed in,
 * recently: within `registrationMaxAge` of signing in, plus the challenge's life to answer; else to
 * the sign-in page first), or, with `signUp`, a visitor's new account begins with one (the signIn
 * callback decides, and the passkey is kept only once it allowed). A credential ID that exists is
 * refused. `events.passkeyAdded` follows every passkey kept.
 */
export async function addPasskey(
  ctx: Context,
  runtime: PasskeyRuntime,
  ceremony: Ceremony,
  data: unknown,
  expected: Expected,
): Promise<void> {
  const { handle, user, userId } = ceremony
  if (handle === undefined || user === undefined) return refuse(ctx, 'a registration without its user')
  let signedIn: SessionRecord | null = null
  if (userId !== undefined) {
    const record = await ctx.svc.sessions.read(ctx.sessionCookie())
    signedIn = record
    if (record?.userId !== userId) return refuse(ctx, 'a registration whose user is no longer signed in')
    if (!signedInRecently(record, runtime, runtime.provider.challengeMaxAge) || !(await assured(ctx, record))) {
      logSignInAgain(ctx, record, 'registration')
      return ctx.redirect(await signInAgainUrl(ctx), 401)
    }
  } else if (!runtime.provider.signUp) return refuse(ctx, 'a sign-up, which passkey() does not allow')
  const result = await verifyRegistration(data, expected)
  if (!result.ok) return refuse(ctx, `a registration that does not verify (${result.reason.slice(0, 100)})`)
  if (await runtime.store.get(result.id)) return refuse(ctx, 'a passkey whose credential ID is registered already')
  const now = Date.now()
  const passkey = (owner: string): StoredPasskey => ({
    id: result.id,
    userId: owner,
    userHandle: handle,
    publicKey: result.publicKey,
    counter: result.counter,
    transports: result.transports,
    name: modelOf(result.aaguid) ?? 'Passkey',
    createdAt: now,
    lastUsedAt: null,
    backedUp: result.backedUp,
    deviceType: result.deviceType,
    aaguid: result.aaguid,
    user,
  })
  const keep = async (owner: string) => {
    // A new account's handle is kept as its own, so its next passkeys share it (one account per device).
    if (userId === undefined) await runtime.store.userHandle(owner, handle)
    if (!(await runtime.store.create(passkey(owner)))) return false
    ctx.svc.log('info', 'passkey.added', 'a passkey was added', { ...ctx.svc.userForLog(owner) })
    // The session that added it, when it is one the device list names (a sign-up's comes after it).
    const token = userId === undefined ? null : ctx.sessionCookie().token()
    const added = {
      userId: owner,
      passkeyId: result.id,
      handle: token === null ? null : runtime.sessionHandle(token, signedIn),
    }
    ctx.audit({ event: 'passkey.added', userId: owner, provider: runtime.provider.id, handle: added.handle })
    await ctx.emit('passkeyAdded', ctx.svc.config.events.passkeyAdded, added)
    return true
  }
  if (userId !== undefined) {
    if (!(await keep(userId))) return refuse(ctx, 'a passkey whose credential ID is registered already')
    return ctx.redirect(await ctx.callbackTarget())
  }
  await completeSignIn(ctx, {
    user: { id: handle, ...user },
    account: { provider: runtime.provider.id, type: 'webauthn', providerAccountId: result.id },
    userId: `${runtime.provider.id}:${handle}`,
    callbackUrl: await ctx.callbackTarget(),
    prepare: keep,
  })
}
