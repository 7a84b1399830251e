import { sendPasskeyScript } from '../../infra/http/page-response'
import type { Context } from '../../core/context'
import { AuthError } from '../../infra/errors'

/**
 * GET /assets/passkey.js: the script of the sign-in page's passkey button and autofill. Only with a
 * passkey() provider: elsewhere it would be a script gadget on the app's origin (it posts a
 * credential and a fetched CSRF token to whatever form carries its attributes).
 */
export async function passkeyScript(ctx: Context): Promise<void> {
  if (!ctx.svc.passkey) throw new AuthError('NotFound', 'no passkey provider')
  sendPasskeyScript(ctx.res)
}
