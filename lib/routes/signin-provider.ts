import { randomToken } from '../crypto/random'
import { AuthError } from '../errors'
import { sendJson } from '../http/reply'
import { beginFlow } from '../providers/flow'
import { extraParams, startAuthorization } from '../providers/authorize'
import { callbackTarget, flowCookies, respondRedirect, serviceUrl, type Context } from './context'

/**
 * POST /signin/:provider (CSRF checked by the router): starts an OAuth flow and sends the browser
 * to the provider (or answers `{url}` in JSON mode).
 */
export async function signInWithProvider(ctx: Context): Promise<void> {
  const { svc } = ctx
  const runtime = svc.oauth.get(ctx.provider ?? '')
  if (!runtime) {
    if (ctx.json) return sendJson(ctx.res, 404, JSON.stringify({ url: serviceUrl(ctx, '/signin', { error: 'Signin' }) }), true)
    throw new AuthError('NotFound', 'no such provider')
  }
  const { provider } = runtime
  const csrfToken = svc.csrf.read(ctx.cookies[ctx.cookieSet.csrfToken.name])!
  const callbackUrl = await callbackTarget(ctx)
  const nonce = provider.checks.includes('nonce') ? randomToken(16) : undefined
  const started = await startAuthorization(svc.oauth, runtime, ctx.req, {
    callbackURL: `${ctx.base.href}/callback/${provider.id}`,
    params: extraParams(ctx.query),
    ...(nonce === undefined ? {} : { nonce }),
    start: {
      begin: (verifier) => beginFlow(svc.flowKeys, flowCookies(ctx), csrfToken, {
        provider: provider.id, callbackUrl, ...(verifier ? { verifier } : {}), ...(nonce ? { nonce } : {}),
      }),
    },
  })
  if (started.ok) return respondRedirect(ctx, started.url)
  svc.log('error', 'callback.error', `provider ${provider.id}: the sign-in could not start: ${started.reason}`)
  respondRedirect(ctx, serviceUrl(ctx, '/error', { error: 'OAuthSignin' }))
}
