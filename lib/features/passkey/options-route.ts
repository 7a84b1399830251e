import type { Context } from '../../core/context'
import type { CsrfFailure } from '../../core/csrf-failure'
import { AuthError } from '../../infra/errors'
import { sendJson } from '../../infra/http/reply'
import { passkeyOptions } from './options-flow'
import type { PasskeyRuntime } from './runtime'

/**
 * GET /webauthn-options/:provider: a passkey ceremony's options (lib/features/passkey/options-flow.ts).
 * A GET, but it keeps a challenge and sets a cookie: a request another site's page sent is refused
 * as a POST would be by the origin check (the route's policy, ./index.ts), with this answer.
 */
export async function webauthnOptions(ctx: Context, runtime: PasskeyRuntime): Promise<void> {
  if (ctx.providerId !== runtime.provider.id) throw new AuthError('NotFound', 'no such provider')
  await passkeyOptions(ctx, runtime)
}

/** The answer to an options request from another site. */
export const crossSiteOptions: CsrfFailure = async (ctx) =>
  sendJson(ctx.res, 403, JSON.stringify({ error: 'Cross-site request' }), true)
