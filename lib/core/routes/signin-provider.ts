import type { Context } from '../context'
import { AuthError } from '../../infra/errors'
import { sendJson } from '../../infra/http/reply'
import { startEmailSignIn } from '../../features/email/start'
import { startOAuthSignIn } from '../../features/oauth/start'

/** POST /signin/:provider (CSRF checked by the router): starts the provider's sign-in. */
export async function signInWithProvider(ctx: Context): Promise<void> {
  const { email, oauth } = ctx.svc
  if (email && ctx.providerId === email.provider.id) return startEmailSignIn(ctx, email)
  const runtime = oauth.get(ctx.providerId ?? '')
  if (runtime) return startOAuthSignIn(ctx, runtime)
  if (ctx.jsonMode)
    return sendJson(ctx.res, 404, JSON.stringify({ url: ctx.serviceUrl('/signin', { error: 'Signin' }) }), true)
  throw new AuthError('NotFound', 'no such provider')
}
