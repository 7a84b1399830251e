import { AuthError } from '../errors'
import { sendRedirect } from '../http/reply'
import { checkFlow } from '../providers/flow'
import { finishAuthorization } from '../providers/authorize'
import { completeSignIn } from './complete-sign-in'
import { flowCookies, serviceUrl, stringParam, type Context } from './context'

/**
 * GET and POST /callback/:provider: the provider sends the user back. Any failure (state, flow
 * cookie, PKCE, token, userinfo, ID token) ends on OAuthCallback with nobody signed in; the user
 * declining ends on AccessDenied. The flow cookie is cleared in every case.
 */
export async function oauthCallback(ctx: Context): Promise<void> {
  const { svc } = ctx
  const runtime = svc.oauth.get(ctx.provider ?? '')
  if (!runtime) throw new AuthError('NotFound', 'no such provider')
  const id = runtime.provider.id
  const param = (name: string) => stringParam(ctx, name)
  const csrfToken = svc.csrf.read(ctx.cookies[ctx.cookieSet.csrfToken.name])
  const fail = (code: 'OAuthCallback' | 'AccessDenied', reason: string) => {
    svc.log(code === 'AccessDenied' ? 'info' : 'warn', 'callback.error', `provider ${id}: ${reason}`)
    sendRedirect(ctx.res, serviceUrl(ctx, '/error', { error: code }))
  }

  // The flow is checked (and its cookie spent) first, whatever comes next: the package never
  // relies on a strategy to have checked it.
  const flow = checkFlow(svc.flowKeys, flowCookies(ctx), id, param('state'), csrfToken)
  const error = param('error')
  if (error === 'access_denied') return fail('AccessDenied', 'the user declined')
  if (error !== null) return fail('OAuthCallback', 'the provider answered with an error')
  if (!flow) return fail('OAuthCallback', 'the state or the flow cookie did not match')
  // Refused here, before any token request, rather than left to the strategy.
  if (!param('code')) return fail('OAuthCallback', 'the provider sent no code')
  if (runtime.provider.checks.includes('pkce') && !flow.verifier) return fail('OAuthCallback', 'the flow has no PKCE verifier')
  const finished = await finishAuthorization(svc.oauth, runtime, ctx.req, {
    callbackURL: `${ctx.base.href}/callback/${id}`, flow, query: ctx.query, body: ctx.body, iss: param('iss'),
  })
  if (finished.kind === 'failed') return fail('OAuthCallback', finished.reason)
  await completeSignIn(ctx, { user: finished.user, account: finished.account, profile: finished.profile, callbackUrl: flow.callbackUrl, ...(flow.id ? { flowId: flow.id } : {}) })
}
