import { safeCallbackUrl } from '../../infra/urls/callback-url'
import { sendRedirect } from '../../infra/http/reply'
import { renderPage } from '../../infra/http/page-response'
import type { Context } from '../context'
import type { Feature, SignInPageParts } from '../feature'
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
  const offered = reauth ? await reauthFor(ctx) : null
  const error = ctx.query.get('error') ?? reauth ?? (ctx.query.get('csrf') === 'true' ? 'MissingCSRF' : undefined)
  // A step-up offers the ways in this user has, when a feature knows them: a feature whose
  // providers are none of them adds nothing to the page.
  const offers = (feature: Feature) =>
    offered === null || feature.providers === undefined || [...feature.providers.ids].some((id) => offered.has(id))
  const parts = features.reduce<SignInPageParts>(
    (all, feature) => (offers(feature) ? { ...all, ...feature.signInPage?.(ctx, error) } : all),
    {},
  )
  const { email: typed, ...more } = parts
  const email = typed ?? ctx.query.get('email')
  renderPage(
    ctx.res,
    200,
    'signin',
    {
      base: ctx.base.href,
      csrfToken: ctx.csrfToken(),
      callbackUrl: safeCallbackUrl(ctx.query.get('callbackUrl'), ctx.base, config.redirectOrigins),
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
      ...more,
    },
    { formAction: await formActionOrigins(ctx, 'signin'), messages: ctx.messages(), theme: ctx.svc.config.theme },
  )
}

/**
 * A step-up's page, for a signed-in user: marks who must sign in again (../sign-in/reauth.ts), and
 * answers the providers they have a way in with (null: all).
 */
async function reauthFor(ctx: Context): Promise<ReadonlySet<string> | null> {
  const record = await ctx.svc.sessions.read(ctx.sessionCookie())
  if (record === null) return null
  markReauth(ctx, record.userId)
  return waysInOf(ctx, record.userId)
}

/** The providers the user has a way in with, by the first feature that knows; null when none does. */
async function waysInOf(ctx: Context, userId: string): Promise<ReadonlySet<string> | null> {
  for (const feature of ctx.svc.features) {
    const found = await feature.waysInOf?.(userId)
    if (found) return found
  }
  return null
}
