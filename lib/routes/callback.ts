import type { Context } from '../context'
import { AuthError } from '../errors'
import { finishOAuthSignIn } from '../sign-in/callback'

/** GET and POST /callback/:provider: the provider sends the user back (lib/sign-in/callback.ts). */
export async function oauthCallback(ctx: Context): Promise<void> {
  const runtime = ctx.svc.oauth.get(ctx.provider ?? '')
  if (!runtime) throw new AuthError('NotFound', 'no such provider')
  await finishOAuthSignIn(ctx, runtime)
}
