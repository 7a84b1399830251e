import { sendPasskeyScript } from '../http/page-response'
import type { Context } from '../context'

/** GET /assets/passkey.js: the script of the sign-in page's passkey button and autofill. */
export async function passkeyScript(ctx: Context): Promise<void> {
  sendPasskeyScript(ctx.res)
}
