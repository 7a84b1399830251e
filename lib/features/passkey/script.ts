import { sendAsset } from '../../infra/http/page-response'
import { asset } from '../../infra/pages/assets'
import type { Context } from '../../core/context'

/** The sign-in page's passkey ceremony (views/passkey.js): no bundler, no library, no CDN. */
const PASSKEY_SCRIPT = asset('passkey.js')

/**
 * GET /assets/passkey.js: the script of the sign-in page's passkey button and autofill. Only with a
 * passkey() provider: elsewhere it would be a script gadget on the app's origin (it posts a
 * credential and a fetched CSRF token to whatever form carries its attributes): the route is
 * declared only then (./index.ts).
 */
export async function passkeyScript(ctx: Context): Promise<void> {
  sendAsset(ctx.res, PASSKEY_SCRIPT, 'text/javascript; charset=utf-8')
}
