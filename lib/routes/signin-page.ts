import { safeCallbackUrl } from '../http/callback-url'
import { sendRedirect } from '../http/reply'
import { renderPage } from '../http/render'
import { ensureCsrfToken, pageUrl, type Context } from './context'

/**
 * GET /signin: the built-in sign-in page (or the app's own, `pages.signIn`, with the query carried
 * over). It only displays: no session changes. It sets the CSRF cookie its forms need.
 */
export async function signInPage(ctx: Context): Promise<void> {
  const { config } = ctx.svc
  if (config.pages.signIn) return sendRedirect(ctx.res, pageUrl(ctx, config.pages.signIn))
  const error = ctx.query.get('error') ?? (ctx.query.get('csrf') === 'true' ? 'MissingCSRF' : undefined)
  renderPage(ctx.res, 200, 'signin', {
    base: ctx.base.href,
    csrfToken: ensureCsrfToken(ctx),
    callbackUrl: safeCallbackUrl(ctx.query.get('callbackUrl'), ctx.base, config.trustedOrigins),
    providers: config.providers.map(({ id, name, type }) => ({ id, name, type, signinUrl: `${ctx.base.href}/signin/${id}` })),
    ...(error === undefined ? {} : { error }),
    ...(ctx.query.get('email') ? { email: ctx.query.get('email')! } : {}),
  })
}
