import type { Context } from '../context'
import { AuthError } from '../../infra/errors'
import { finishOAuthSignIn } from '../../features/oauth/callback'
import { confirmEmailLink, showEmailLink } from '../../features/email/callback'
import { finishPasskey } from '../../features/passkey/callback'

/**
 * GET and POST /callback/:provider: an OAuth provider sends the user back (lib/features/oauth/callback.ts),
 * or the user opens (GET) and confirms (POST) an e-mail link (lib/features/email/callback.ts), or a
 * passkey's answer arrives (POST).
 */
export async function providerCallback(ctx: Context): Promise<void> {
  const { email, oauth, passkey } = ctx.svc
  if (email && ctx.providerId === email.provider.id) {
    return ctx.req.method === 'POST' ? confirmEmailLink(ctx, email) : showEmailLink(ctx, email)
  }
  // A passkey's answer is posted by the page's script or the NextAuth client (lib/features/passkey/callback.ts).
  if (passkey && ctx.providerId === passkey.provider.id) {
    if (ctx.req.method !== 'POST') throw new AuthError('NotFound', 'a passkey answer is posted')
    return finishPasskey(ctx, passkey)
  }
  const runtime = oauth.get(ctx.providerId ?? '')
  if (!runtime) throw new AuthError('NotFound', 'no such provider')
  await finishOAuthSignIn(ctx, runtime)
}
