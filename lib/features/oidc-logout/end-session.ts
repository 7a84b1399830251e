import type { Context } from '../../core/context'
import type { OAuthRegistry } from '../oauth/registry'

/**
 * The sign-out page's form reaches where `logout: 'provider'` providers sign out (their end-session
 * endpoint, configured or discovered; the issuer's origin while discovery has not succeeded).
 */
export async function endSessionOrigins(ctx: Context, registry: OAuthRegistry): Promise<string[]> {
  const origins: string[] = []
  for (const { id } of ctx.svc.config.providers) {
    const runtime = registry.get(id)
    const provider = runtime?.provider
    if (!runtime || provider?.protocol !== 'oidc' || provider.logout !== 'provider') continue
    const discovered = provider.endSessionUrl === undefined ? await runtime.awaitDiscovery() : null
    const endpoint = provider.endSessionUrl ?? discovered?.oidc?.metadata.end_session_endpoint ?? provider.issuer
    origins.push(new URL(endpoint).origin)
  }
  return origins
}
