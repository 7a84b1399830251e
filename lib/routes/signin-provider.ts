import type { Context } from '../context'
import { AuthError } from '../errors'
import { sendJson } from '../http/reply'
import { startEmailSignIn } from '../sign-in/email-start'
import { startOAuthSignIn } from '../sign-in/oauth-start'

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
