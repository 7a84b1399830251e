import { safeCallbackUrl } from '../../infra/urls/callback-url'
import { sendRedirect } from '../../infra/http/reply'
import { renderPage } from '../../infra/http/page-response'
import type { Context } from '../context'
import type { SignInPageParts } from '../feature'
import { formActionOrigins } from '../sign-in/form-action'
import { markReauth } from '../sign-in/reauth'
import { providerUrls } from '../../infra/urls/provider-urls'

/**
 * GET /signin: the built-in sign-in page (or the app's own, `pages.signIn`, with the query carried
 * over). It only displays: no session changes. It sets the CSRF cookie its forms need. The features
 * add their parts (lib/core/feature.ts `signInPage`).
 */
export async function signInPage(ctx: Context): Promise<void> {
  const { config, features } = ctx.svc
  if (config.pages.signIn) return sendRedirect(ctx.res, ctx.pageUrl(config.pages.signIn))
  // `reauth=1` (requireAuth's step-up): the user is signed in, and asked to prove it again.
  const reauth = ctx.query.get('reauth') === '1' ? 'ReauthRequired' : undefined
  let offered: ReadonlySet<string> | null = null
  if (reauth) {
    const record = await ctx.svc.sessions.read(ctx.sessionCookie())
    if (record !== null) {
      markReauth(ctx, record.userId)
      offered = await waysInOf(ctx, record.userId)
    }
  }
  const error = ctx.query.get('error') ?? reauth ?? (ctx.query.get('csrf') === 'true' ? 'MissingCSRF' : undefined)
  const parts = features.reduce<SignInPageParts>(
    (all, feature) => ({ ...all, ...feature.signInPage?.(ctx, error) }),
    {},
  )
  // A step-up offers the ways in this user has, when a feature knows them.
  const shown = (type: string) => offered === null || config.providers.some((p) => p.type === type && offered.has(p.id))
  const { email: typed, passkey, credentials, ...more } = parts
  const email = typed ?? ctx.query.get('email')
  renderPage(
    ctx.res,
    200,
    'signin',
    {
      base: ctx.base.href,
      csrfToken: ctx.csrfToken(),
      callbackUrl: safeCallbackUrl(ctx.query.get('callbackUrl'), ctx.base, config.trustedOrigins),
      providers: config.providers
        .filter(({ id }) => offered === null || offered.has(id))
        .map(({ id, name, type }) => ({
          id,
          name,
          type,
          signinUrl: providerUrls(ctx.base, id).signinUrl,
        })),
      ...(error === undefined ? {} : { error }),
      ...(email ? { email } : {}),
      ...(passkey && shown('webauthn') ? { passkey } : {}),
      ...(credentials && shown('credentials') ? { credentials } : {}),
      ...more,
    },
    { formAction: await formActionOrigins(ctx, 'signin'), messages: ctx.messages(), theme: ctx.svc.config.theme },
  )
}

/** The providers the user has a way in with, by the first feature that knows; null when none does. */
async function waysInOf(ctx: Context, userId: string): Promise<ReadonlySet<string> | null> {
  for (const feature of ctx.svc.features) {
    const found = await feature.waysInOf?.(userId)
    if (found) return found
  }
  return null
}
