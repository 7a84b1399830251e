import type { Context } from '../context'
import { userForLog } from '../providers/email-runtime'

/**
 * POST /signout (CSRF checked by the router): removes the session where it is kept, clears its
 * cookie, then redirects to the validated callbackUrl. No GET ever signs out.
 */
export async function signOut(ctx: Context): Promise<void> {
  const { svc } = ctx
  const cookie = ctx.sessionCookie()
  if (svc.sessions.present(cookie)) {
    const record = await svc.sessions.read(cookie)
    await svc.sessions.destroy(cookie)
    svc.log('info', 'signout', 'signed out', userForLog(svc.email, record?.userId))
    await ctx.emit('signOut', svc.config.events.signOut, { record })
  }
  ctx.redirect(await ctx.callbackTarget())
}
