import type { Context } from '../../core/context'
import { finishAuthorization } from './authorize'
import type { OAuthRegistry, OAuthRuntime } from './registry'
import { providerUrls } from '../../infra/urls/provider-urls'
import { completeSignIn } from '../../core/sign-in/complete'
import { checkFlow } from '../../core/sign-in/flow'
import { peekReauth } from '../../core/sign-in/reauth'

/**
 * The provider sends the user back (GET or POST /callback/:provider). The flow is checked, and its
 * cookie spent, before anything else; then the provider's answer. Any failure (state, flow cookie,
 * code, PKCE, token, userinfo, ID token) ends on OAuthCallback with nobody signed in; the user
 * declining ends on AccessDenied.
 */
export async function finishOAuthSignIn(ctx: Context, registry: OAuthRegistry, runtime: OAuthRuntime): Promise<void> {
  const { svc } = ctx
  const { id } = runtime.provider
  const fail = (code: 'OAuthCallback' | 'AccessDenied', reason: string) => {
    svc.log(code === 'AccessDenied' ? 'info' : 'warn', 'callback.error', `provider ${id}: ${reason}`)
    ctx.redirectToError(code)
  }

  // The package never relies on a strategy to have checked the flow.
  const csrfToken = svc.csrf.read(ctx.cookies[ctx.cookieSet.csrfToken.name])
  const flow = checkFlow(svc.flowKeys, ctx.flowCookies(), id, ctx.param('state'), csrfToken)
  const error = ctx.param('error')
  if (error === 'access_denied') return fail('AccessDenied', 'the user declined')
  if (error !== null) return fail('OAuthCallback', 'the provider answered with an error')
  if (!flow) return fail('OAuthCallback', 'the state or the flow cookie did not match')
  // A step-up began (in another tab) after this flow, which did not ask for a fresh sign-in: it
  // cannot meet it. The step-up stays; signing in again from its page asks for one.
  if (runtime.provider.protocol === 'oidc' && flow.reauthAt === undefined && peekReauth(ctx) !== null)
    return fail('OAuthCallback', 'a re-authentication began after this sign-in started: refused; sign in again')
  // Refused here, before any token request, rather than left to the strategy.
  if (!ctx.param('code')) return fail('OAuthCallback', 'the provider sent no code')
  if (runtime.provider.checks.includes('pkce') && !flow.verifier)
    return fail('OAuthCallback', 'the flow has no PKCE verifier')

  const finished = await finishAuthorization(registry, runtime, ctx.req, {
    callbackURL: providerUrls(ctx.base, id).callbackUrl,
    flow,
    query: ctx.query,
    body: ctx.body,
    iss: ctx.param('iss'),
  })
  if (finished.kind === 'failed') return fail('OAuthCallback', finished.reason)
  const { user, account, profile, identity, amr, authTime } = finished
  await completeSignIn(ctx, {
    user,
    account,
    profile,
    identity,
    ...(amr ? { amr } : {}),
    ...(authTime === undefined ? {} : { authTime }),
    callbackUrl: flow.callbackUrl,
    ...(flow.id ? { flowId: flow.id } : {}),
  })
}
