import type { Context } from '../../core/context'
import { randomToken } from '../../infra/crypto/random'
import { extraParams, startAuthorization } from './authorize'
import type { OAuthRegistry, OAuthRuntime } from './registry'
import { providerUrls } from '../../infra/urls/provider-urls'
import { beginFlow } from '../../core/sign-in/flow'
import { peekReauth } from '../../core/sign-in/reauth'
import { assuranceParams } from './assurance'

/**
 * The start of an OAuth sign-in (POST /signin/:provider, CSRF already checked): where to go after
 * it, a new flow (its sealed cookie and the `state` bound to this browser), and the redirect to
 * the provider's authorization endpoint (or `{url}` in JSON mode).
 */
export async function startOAuthSignIn(ctx: Context, registry: OAuthRegistry, runtime: OAuthRuntime): Promise<void> {
  const { svc } = ctx
  const { provider } = runtime
  // The router has verified this cookie against the POST's token.
  const csrfToken = svc.csrf.read(ctx.cookies[ctx.cookieSet.csrfToken.name])!
  const callbackUrl = await ctx.callbackTarget()
  const nonce = provider.checks.includes('nonce') ? randomToken(16) : undefined
  // A step-up's sign-in (the reauth cookie, left for completeSignIn to spend) asks an OpenID
  // provider for a fresh one; the flow keeps when it began, for the ID token's auth_time.
  const reauthAt = provider.protocol === 'oidc' && peekReauth(ctx) !== null ? Math.floor(Date.now() / 1000) : undefined
  const started = await startAuthorization(registry, runtime, ctx.req, {
    callbackURL: providerUrls(ctx.base, provider.id).callbackUrl,
    // Ours last: an app's extra `prompt` or `max_age` cannot weaken a step-up.
    params: { ...extraParams(ctx.query), ...assuranceParams(provider, reauthAt !== undefined) },
    ...(nonce === undefined ? {} : { nonce }),
    start: {
      begin: (verifier) =>
        beginFlow(svc.flowKeys, ctx.flowCookies(), csrfToken, {
          provider: provider.id,
          callbackUrl,
          ...(verifier ? { verifier } : {}),
          ...(nonce ? { nonce } : {}),
          ...(reauthAt === undefined ? {} : { reauthAt }),
        }),
    },
  })
  if (started.ok) return ctx.redirect(started.url)
  // A failed discovery is logged where it failed; an issuer that answered wrong is the app's configuration.
  if ('discovery' in started)
    return ctx.redirectToError(started.discovery.kind === 'configuration' ? 'Configuration' : 'OAuthSignin')
  svc.log('error', 'callback.error', `provider ${provider.id}: the sign-in could not start: ${started.reason}`)
  ctx.redirectToError('OAuthSignin')
}
