import { safeCallbackUrl } from '../../infra/urls/callback-url'
import { sendRedirect } from '../../infra/http/reply'
import { renderPage } from '../../infra/http/page-response'
import type { Context } from '../context'
import { formActionOrigins } from '../sign-in/form-action'

/** GET /signout: asks before signing out; the form POSTs with the CSRF token. Never signs out itself. */
export async function signOutPage(ctx: Context): Promise<void> {
  const { config } = ctx.svc
  if (config.pages.signOut) return sendRedirect(ctx.res, ctx.pageUrl(config.pages.signOut))
  renderPage(
    ctx.res,
    200,
    'signout',
    {
      base: ctx.base.href,
      csrfToken: ctx.csrfToken(),
      callbackUrl: safeCallbackUrl(ctx.query.get('callbackUrl'), ctx.base, config.redirectOrigins),
    },
    { formAction: await formActionOrigins(ctx, 'signout'), messages: ctx.messages(), theme: ctx.svc.config.theme },
  )
}
