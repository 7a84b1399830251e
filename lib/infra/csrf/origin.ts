import type { IncomingHttpHeaders } from 'node:http'

/**
 * Defence in depth behind the CSRF token: whether a browser says this POST came from a site that
 * may not send it. `Sec-Fetch-Site: cross-site` is refused unless its `Origin` is trusted; where a
 * browser sends no `Sec-Fetch-Site` (older ones), an `Origin` that is present, not `null`, and
 * neither the service's nor trusted is refused. Requests without either header (curl, servers, the
 * NextAuth client in Node) are left to the token: no browser sends a form that way.
 */
export function crossSiteRefused(
  headers: IncomingHttpHeaders,
  siteOrigin: string,
  trustedOrigins: ReadonlySet<string>,
): boolean {
  const origin = headers.origin
  const trusted = typeof origin === 'string' && (origin === siteOrigin || trustedOrigins.has(origin))
  const fetchSite = headers['sec-fetch-site']
  if (fetchSite === 'cross-site') return !trusted
  if (fetchSite !== undefined) return false
  return typeof origin === 'string' && origin !== 'null' && !trusted
}
