import type { Context } from '../context'
import { AuthError } from '../errors'
import { sendJson } from '../http/reply'
import { startOAuthSignIn } from '../sign-in/start'

/** POST /signin/:provider (CSRF checked by the router): starts the provider's sign-in. */
export async function signInWithProvider(ctx: Context): Promise<void> {
  const runtime = ctx.svc.oauth.get(ctx.provider ?? '')
  if (runtime) return startOAuthSignIn(ctx, runtime)
  if (ctx.json)
    return sendJson(ctx.res, 404, JSON.stringify({ url: ctx.serviceUrl('/signin', { error: 'Signin' }) }), true)
  throw new AuthError('NotFound', 'no such provider')
}
