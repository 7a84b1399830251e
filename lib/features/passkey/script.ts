import { sendPasskeyScript } from '../../infra/http/page-response'
import type { Context } from '../../core/context'

/**
 * GET /assets/passkey.js: the script of the sign-in page's passkey button and autofill. Only with a
 * passkey() provider: elsewhere it would be a script gadget on the app's origin (it posts a
 * credential and a fetched CSRF token to whatever form carries its attributes): the route is
 * declared only then (./index.ts).
 */
export async function passkeyScript(ctx: Context): Promise<void> {
  sendPasskeyScript(ctx.res)
}
