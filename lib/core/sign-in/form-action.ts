import type { Context } from '../context'

/**
 * What a built-in page's forms may reach, redirects included (Chromium applies CSP `form-action` to
 * the redirects after a form POST): this site, the trusted origins and the app's own pages; with
 * `providers`, also every OAuth provider's authorization endpoint (OIDC discovery is awaited for
 * it, unless it failed a moment ago), and `formActionOrigins`; with `signOut`, the end-session
 * endpoints of `logout: 'provider'` providers. Null when a strategy's endpoint is
 * unknown: the page then has no `form-action` rather than a sign-in button that cannot work.
 */
export async function formActionOrigins(
  ctx: Context,
  providers: boolean,
  signOut = false,
): Promise<readonly string[] | null> {
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
  if (signOut) for (const origin of await endSessionOrigins(ctx)) origins.add(origin)
  origins.delete(ctx.base.origin)
  return [...origins]
}

/**
 * The sign-out page's form: where `logout: 'provider'` providers sign out (their end-session
 * endpoint, configured or discovered; the issuer's origin while discovery has not succeeded).
 */
async function endSessionOrigins(ctx: Context): Promise<string[]> {
  const { config, oauth } = ctx.svc
  const origins: string[] = []
  for (const { id } of config.providers) {
    const runtime = oauth.get(id)
    const provider = runtime?.provider
    if (!runtime || provider?.protocol !== 'oidc' || provider.logout !== 'provider') continue
    const discovered = provider.endSessionUrl === undefined ? await runtime.awaitDiscovery() : null
    const endpoint = provider.endSessionUrl ?? discovered?.oidc?.metadata.end_session_endpoint ?? provider.issuer
    origins.push(new URL(endpoint).origin)
  }
  return origins
}
