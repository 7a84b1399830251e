import type { Context } from '../../core/context'
import { safeCallbackUrl } from '../../infra/urls/callback-url'
import { showPage } from '../../core/show-page'

/** `GET /password/sent?kind=signup|reset`: "check your e-mail". */
export async function sentPage(ctx: Context): Promise<void> {
  const kind = ctx.query.get('kind') === 'reset' ? 'reset' : 'signup'
  await showPage(ctx, 200, 'password-sent', { base: ctx.base.href, kind })
}

/** `GET /password/done?kind=reset|changed|added`: the password is set; on to sign in, or back to the app. */
export async function donePage(ctx: Context): Promise<void> {
  const given = ctx.query.get('kind')
  const kind = given === 'changed' || given === 'added' ? given : 'reset'
  const callbackUrl = safeCallbackUrl(ctx.query.get('callbackUrl'), ctx.base, ctx.svc.config.redirectOrigins)
  await showPage(ctx, 200, 'password-done', {
    base: ctx.base.href,
    kind,
    signInUrl: ctx.serviceUrl('/signin', { callbackUrl }),
    callbackUrl,
  })
}
