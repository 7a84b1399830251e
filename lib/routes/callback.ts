import type { Context } from '../context'
import { AuthError } from '../errors'
import { finishOAuthSignIn } from '../sign-in/oauth-callback'
import { confirmEmailLink, showEmailLink } from '../sign-in/email-callback'

/**
 * GET and POST /callback/:provider: an OAuth provider sends the user back (lib/sign-in/oauth-callback.ts),
 * or the user opens (GET) and confirms (POST) an e-mail link (lib/sign-in/email-callback.ts).
 */
export async function providerCallback(ctx: Context): Promise<void> {
  const { email, oauth } = ctx.svc
  if (email && ctx.providerId === email.provider.id) {
    return ctx.req.method === 'POST' ? confirmEmailLink(ctx, email) : showEmailLink(ctx, email)
  }
  const runtime = oauth.get(ctx.providerId ?? '')
  if (!runtime) throw new AuthError('NotFound', 'no such provider')
  await finishOAuthSignIn(ctx, runtime)
}
