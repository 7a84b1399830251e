import { safeCallbackUrl } from '../http/callback-url'
import { sendRedirect } from '../http/reply'
import { renderPage } from '../http/render'
import { ensureCsrfToken, pageUrl, type Context } from './context'

/** GET /signout: asks before signing out; the form POSTs with the CSRF token. Never signs out itself. */
export async function signOutPage(ctx: Context): Promise<void> {
  const { config } = ctx.svc
  if (config.pages.signOut) return sendRedirect(ctx.res, pageUrl(ctx, config.pages.signOut))
  renderPage(ctx.res, 200, 'signout', {
    base: ctx.base.href,
    csrfToken: ensureCsrfToken(ctx),
    callbackUrl: safeCallbackUrl(ctx.query.get('callbackUrl'), ctx.base, config.trustedOrigins),
  })
}
