import type { Context } from '../../core/context'
import { crossSiteRefused } from '../../infra/csrf/origin'
import { AuthError } from '../../infra/errors'
import { sendJson } from '../../infra/http/reply'
import { passkeyOptions } from './options-flow'

/**
 * GET /webauthn-options/:provider: a passkey ceremony's options (lib/features/passkey/options-flow.ts).
 * A GET, but it keeps a challenge and sets a cookie: a request another site's page sent is refused
 * as a POST would be by the origin check.
 */
export async function webauthnOptions(ctx: Context): Promise<void> {
  const { passkey, config } = ctx.svc
  if (!passkey || ctx.providerId !== passkey.provider.id) throw new AuthError('NotFound', 'no such provider')
  if (crossSiteRefused(ctx.req.headers, ctx.base.origin, config.trustedOrigins)) {
    ctx.svc.log('warn', 'request.cross_site', 'a passkey options request from another site was refused', {
      route: 'webauthn-options/:provider',
    })
    return sendJson(ctx.res, 403, JSON.stringify({ error: 'Cross-site request' }), true)
  }
  await passkeyOptions(ctx, passkey)
}
