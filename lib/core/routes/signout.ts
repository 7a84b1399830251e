import type { Context } from '../context'
import { AuthError, undefinedIfUnavailable } from '../../infra/errors'
import type { SessionRecord } from '../../infra/config/types'
import { endReauth } from '../sign-in/reauth'

/**
 * POST /signout (CSRF checked by the router): removes the session where it is kept, clears its
 * cookie, then redirects to the validated callbackUrl. With `everywhere=true` in the body, every
 * session of the signed-in user ends too. With `others=true`, every session of the user ends but
 * this one, which stays signed in (manager.revokeOthers). No GET ever signs out. Once ours has
 * ended, a feature may send the browser on (lib/core/feature.ts `afterSignOut`: a provider's own
 * sign-out, lib/features/oidc-logout/) instead of to the callbackUrl.
 *
 * When the store does not answer, the cookie is cleared all the same (this browser is signed out)
 * and the answer is a 503: the session may live on in the store until it expires. Only a sign-out
 * everywhere that failed keeps the cookie, so that the user can try it again.
 */
export async function signOut(ctx: Context): Promise<void> {
  const { svc } = ctx
  const everywhere = flagOf('everywhere', ctx.body.everywhere)
  const others = flagOf('others', ctx.body.others)
  if (everywhere && others)
    throw new AuthError('InvalidBody', '`everywhere` and `others` cannot both be true: nothing was signed out')
  if (others) return signOutOthers(ctx)
  const cookie = ctx.sessionCookie()
  endReauth(ctx)
  if (svc.sessions.present(cookie)) {
    const record = await svc.sessions.read(cookie).catch(undefinedIfUnavailable)
    if (record === undefined && everywhere)
      throw new AuthError('ServiceUnavailable', 'the session store did not answer: nothing was signed out')
    if (record && everywhere) {
      await svc.sessions.revokeAll(record.userId)
      svc.log('info', 'signout.everywhere', 'signed out of every session', svc.userForLog(record.userId))
      ctx.audit({ event: 'signout.everywhere', userId: record.userId, provider: record.provider ?? null, handle: null })
    }
    const removed = await svc.sessions.destroy(cookie, record ?? null).then(() => true, undefinedIfUnavailable)
    if (removed !== true) {
      svc.sessions.clear(cookie)
      throw new AuthError(
        'ServiceUnavailable',
        'the session store did not answer: the cookie was cleared, the stored session was not',
      )
    }
    svc.log('info', 'signout', 'signed out', svc.userForLog(record?.userId))
    if (record) ctx.audit({ event: 'signout', userId: record.userId, provider: record.provider ?? null }, record)
    await ctx.emit('signOut', svc.config.events.signOut, { record: record ?? null })
    const target = await ctx.callbackTarget()
    return ctx.redirect((await nextStop(ctx, record ?? null, target)) ?? target)
  }
  ctx.redirect(await ctx.callbackTarget())
}

/** Ends the user's other sessions; this one stays (its cookie untouched, with database sessions). */
async function signOutOthers(ctx: Context): Promise<void> {
  const { svc } = ctx
  const cookie = ctx.sessionCookie()
  const record = svc.sessions.present(cookie) ? await svc.sessions.read(cookie).catch(undefinedIfUnavailable) : null
  if (record === undefined)
    throw new AuthError('ServiceUnavailable', 'the session store did not answer: nothing was signed out')
  // Without a session there is no user whose other sessions could be named: nothing to do.
  if (record) {
    await svc.sessions.revokeOthers(cookie, record)
    svc.log('info', 'signout.others', 'signed out of every other session', svc.userForLog(record.userId))
    // The session that stays is the record's handle: the others ended.
    ctx.audit({ event: 'signout.others', userId: record.userId, provider: record.provider ?? null }, record)
  }
  ctx.redirect(await ctx.callbackTarget())
}

/** Where the first feature that has one sends the browser after our sign-out; every feature is asked (each clears what it set). */
async function nextStop(ctx: Context, record: SessionRecord | null, target: string): Promise<string | null> {
  let next: string | null = null
  for (const { afterSignOut } of ctx.svc.features) {
    const url = afterSignOut ? await afterSignOut(ctx, record, target) : null
    next ??= url
  }
  return next
}

/** A flag of the body: 'true' or true; absent, 'false' or false is off; anything else is refused. */
function flagOf(name: 'everywhere' | 'others', value: unknown): boolean {
  if (value === undefined || value === 'false' || value === false) return false
  if (value === 'true' || value === true) return true
  throw new AuthError('InvalidBody', `\`${name}\` must be 'true' or 'false': nothing was signed out`)
}
