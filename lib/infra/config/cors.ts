import { ConfigurationError } from '../errors'
import { parseHttpUrl } from '../urls/http-url'
import type { BaseUrl } from '../urls/base-url'
import type { CookieOverrides } from './types'
import { checkKeys, describe, optionalObject } from '../util/options'

/** `cors`, resolved: the exact origins whose pages may call the CORS routes with credentials. */
export interface ResolvedCors {
  readonly origins: ReadonlySet<string>
}

const EXAMPLE = "{ origins: ['https://app.example.com'] }"

/**
 * `cors` (docs/cors.md): each origin exactly as a browser sends it in `Origin`, so that a request's
 * origin is found by one Set lookup and never matched by a pattern. A wildcard, `null` (any
 * sandboxed page sends it) and a clear-text origin another machine serves are refused; null when
 * the option is unset or lists none (then no route sends a CORS header).
 */
export function resolveCors(
  value: unknown,
  base: BaseUrl | null,
  cookies: CookieOverrides,
  warn: (message: string) => void,
): ResolvedCors | null {
  if (value === undefined) return null
  const cors = optionalObject(value, 'cors')
  checkKeys(cors, ['origins'], 'cors.')
  const list = cors.origins
  if (!Array.isArray(list))
    throw new ConfigurationError(
      `\`cors.origins\` must be an array of origins, as in \`cors: ${EXAMPLE}\`; got ${describe(list)}`,
    )
  const origins = new Set(list.map((origin: unknown, index) => checkedOrigin(origin, `cors.origins[${index}]`, base)))
  if (origins.size === 0) return null
  for (const origin of origins) {
    if (base?.secure && origin.startsWith('http:'))
      warn(
        `\`cors.origins\` lists ${origin}: any program serving that address on a user's own machine can read their session; keep it out of production`,
      )
  }
  const crossSite = base ? [...origins].filter((origin) => !sameSite(origin, base.origin)) : []
  const lax = (['sessionToken', 'csrfToken'] as const).filter((kind) => cookies[kind]?.options?.sameSite !== 'none')
  if (crossSite.length > 0 && lax.length > 0)
    warn(
      `\`cors.origins\` lists ${crossSite.join(', ')}, on another site than ${base!.origin}: browsers send that site's requests no SameSite=Lax cookie, so its pages can neither sign in nor read the session; serve the app on the service's site, or set ${lax.map((kind) => `\`cookies.${kind}.options.sameSite\``).join(' and ')} to 'none' (see docs/cors.md: browsers that block third-party cookies still send none)`,
    )
  return Object.freeze({ origins })
}

function checkedOrigin(origin: unknown, option: string, base: BaseUrl | null): string {
  if (origin === '*')
    throw new ConfigurationError(
      `\`${option}\` is '*': the service shares its sessions with the origins it lists, never with every site; list each origin, such as 'https://app.example.com'`,
    )
  if (origin === 'null')
    throw new ConfigurationError(
      `\`${option}\` is 'null', the Origin of sandboxed frames and local files, which any site can make; list the app's own origin, such as 'https://app.example.com'`,
    )
  const parsed = parseHttpUrl(origin)
  if (typeof origin !== 'string' || !parsed || parsed.origin !== origin.replace(/\/$/, '')) {
    const hint = parsed && typeof origin === 'string' ? `; did you mean '${parsed.origin}'?` : ''
    throw new ConfigurationError(
      `\`${option}\` must be an origin exactly as browsers send it (scheme, host, port; no path, query or fragment), such as 'https://app.example.com'; got ${describe(origin)}${hint}`,
    )
  }
  if (parsed.protocol === 'http:' && !isLoopback(parsed.hostname) && base?.secure !== false)
    throw new ConfigurationError(
      `\`${option}\` is ${parsed.origin}, served in clear text: anyone on the way can put a script in its pages that reads the user's session; use https (http only for localhost, or when the service's own \`url\` is http)`,
    )
  return parsed.origin
}

function isLoopback(hostname: string): boolean {
  return (
    hostname === 'localhost' ||
    hostname.endsWith('.localhost') ||
    hostname === '[::1]' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)
  )
}

/**
 * Whether two origins are on one site (scheme and registrable domain), for a start-up warning only:
 * without the public suffix list, a host's last two labels stand for its registrable domain, so two
 * sites under one public suffix (`a.co.uk`, `b.co.uk`) pass for one and that warning is missed.
 */
function sameSite(one: string, other: string): boolean {
  const a = new URL(one)
  const b = new URL(other)
  return a.protocol === b.protocol && siteOf(a.hostname) === siteOf(b.hostname)
}

function siteOf(hostname: string): string {
  if (hostname.startsWith('[') || /^[\d.]+$/.test(hostname)) return hostname
  return hostname.split('.').slice(-2).join('.')
}
