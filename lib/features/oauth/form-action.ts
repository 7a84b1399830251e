import type { Context } from '../../core/context'
import type { OAuthRegistry } from './registry'

/**
 * The sign-in page's forms reach every OAuth provider's authorization endpoint through the redirect
 * of `POST /signin/:provider` (OIDC discovery is awaited for it, unless it failed a moment ago).
 * Null when a strategy's endpoint is unknown: the page then has no `form-action` rather than a
 * sign-in button that cannot work.
 */
export async function authorizationOrigins(ctx: Context, registry: OAuthRegistry): Promise<readonly string[] | null> {
  const runtimes = ctx.svc.config.providers.flatMap(({ id, type }) =>
    type === 'oauth' ? (registry.get(id) ?? []) : [],
  )
  await Promise.all(runtimes.map((runtime) => runtime.awaitDiscovery()))
  const origins: string[] = []
  for (const runtime of runtimes) {
    const origin = runtime.authorizationOrigin()
    if (origin === undefined) return null
    origins.push(origin)
  }
  return origins
}
