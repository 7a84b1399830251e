import type { Context } from '../context'

/**
 * What a built-in page's forms may reach, redirects included (Chromium applies CSP `form-action` to
 * the redirects after a form POST): this site, the trusted origins and the app's own pages; with
 * `providers`, also every OAuth provider's authorization endpoint (OIDC discovery is awaited for
 * it, unless it failed a moment ago), and `formActionOrigins`. Null when a strategy's endpoint is
 * unknown: the page then has no `form-action` rather than a sign-in button that cannot work.
 */
export async function formActionOrigins(ctx: Context, providers: boolean): Promise<readonly string[] | null> {
  const { config, oauth } = ctx.svc
  const origins = new Set<string>([...config.trustedOrigins, ...config.formActionOrigins])
  for (const page of Object.values(config.pages)) {
    if (typeof page === 'string' && !page.startsWith('/')) origins.add(new URL(page).origin)
  }
  if (providers) {
    const runtimes = config.providers.flatMap(({ id, type }) => (type === 'oauth' ? (oauth.get(id) ?? []) : []))
    await Promise.all(runtimes.map((runtime) => runtime.awaitDiscovery()))
    for (const runtime of runtimes) {
      const origin = runtime.authorizationOrigin()
      if (origin === undefined) return null
      origins.add(origin)
    }
  }
  origins.delete(ctx.base.origin)
  return [...origins]
}
