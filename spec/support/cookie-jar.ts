/**
 * A small browser-like cookie jar for driving HTTP flows with Node's fetch: it stores each
 * response's Set-Cookie headers (RFC 6265 parsing: Domain, Path, Max-Age, Expires, Secure,
 * HttpOnly, SameSite) and builds the Cookie header of the next request.
 *
 * Like browsers, cookies belong to a host name, not a host and port; and, like Chrome and Firefox,
 * http://localhost and http://127.x.x.x count as secure, so `Secure` cookies work there over plain
 * HTTP. SameSite is only enforced when a request says it is cross-site (see `CookieRequest`).
 * Expiry follows `Date.now()`, so a spec moves the jar's clock with ./clock.
 *
 * `splitSetCookie` is the specs' one Set-Cookie parser: the jar and ./cookies both read lines with it.
 */

export type SameSite = 'Strict' | 'Lax' | 'None'

export interface Cookie {
  name: string
  value: string
  /** The host that set it (`hostOnly`), or its Domain attribute: lower case, no leading dot. */
  domain: string
  hostOnly: boolean
  path: string
  /** Expiry in epoch milliseconds; undefined for a session cookie. */
  expires?: number
  httpOnly: boolean
  secure: boolean
  /** As sent; undefined when absent (browsers then treat the cookie as Lax). */
  sameSite?: SameSite
}

export interface CookieRequest {
  method?: string
  /**
   * The request comes from another site, e.g. the IdP redirecting the browser back to our
   * callback: `Strict` cookies are then withheld, and `Lax` (or unmarked) ones are only sent
   * with GET/HEAD, as for a top-level navigation.
   */
  crossSite?: boolean
}

export class CookieJar {
  private cookies: Cookie[] = []

  /** fetch() with this jar: sends its cookies, stores the response's, never follows redirects. */
  async fetch(
    url: string | URL,
    init: RequestInit = {},
    request: Pick<CookieRequest, 'crossSite'> = {},
  ): Promise<Response> {
    const target = new URL(url)
    const headers = new Headers(init.headers)
    const cookie = this.header(target, { method: init.method, crossSite: request.crossSite })
    if (cookie !== undefined && !headers.has('cookie')) headers.set('cookie', cookie)
    const response = await fetch(target, { redirect: 'manual', ...init, headers })
    this.store(target, response)
    return response
  }

  /** Stores every Set-Cookie header of a response to `url`. */
  store(url: string | URL, response: { headers: Headers }): void {
    for (const line of response.headers.getSetCookie()) this.set(url, line)
  }

  /**
   * Stores one Set-Cookie line received from `url`, as a browser would: returns the cookie, or
   * undefined when a browser would reject it (or when it only deletes one).
   */
  set(url: string | URL, line: string): Cookie | undefined {
    const from = new URL(url)
    const now = Date.now()
    const cookie = parseSetCookie(line, from, now)
    if (!cookie) return undefined
    this.cookies = this.cookies.filter(
      (c) => !(c.name === cookie.name && c.domain === cookie.domain && c.path === cookie.path),
    )
    if (cookie.expires !== undefined && cookie.expires <= now) return undefined // Max-Age=0 or a past Expires: a deletion
    this.cookies.push(cookie)
    return cookie
  }

  /** The Cookie header a browser would send to `url`, or undefined when there is none. */
  header(url: string | URL, request: CookieRequest = {}): string | undefined {
    const target = new URL(url)
    const method = (request.method ?? 'GET').toUpperCase()
    const sent = this.live().filter((c) => {
      if (!(c.hostOnly ? c.domain === target.hostname : domainMatch(target.hostname, c.domain))) return false
      if (!pathMatch(target.pathname, c.path)) return false
      if (c.secure && !isSecureOrigin(target)) return false
      if (request.crossSite && c.sameSite !== 'None') {
        if (c.sameSite === 'Strict' || !['GET', 'HEAD'].includes(method)) return false
      }
      return true
    })
    // Longer paths first (RFC 6265 §5.4); the sort is stable, so otherwise in creation order.
    sent.sort((a, b) => b.path.length - a.path.length)
    return sent.length ? sent.map((c) => `${c.name}=${c.value}`).join('; ') : undefined
  }

  /** The live cookie `name` that a request to `host` could carry (any path; the most specific one). */
  get(host: string | URL, name: string): Cookie | undefined {
    return this.all(host)
      .filter((c) => c.name === name)
      .sort((a, b) => b.path.length - a.path.length)[0]
  }

  /** The live cookies for `host` (a host name, host:port or URL), whatever their path. */
  all(host: string | URL): Cookie[] {
    const hostname = hostnameOf(host)
    return this.live().filter((c) => (c.hostOnly ? c.domain === hostname : domainMatch(hostname, c.domain)))
  }

  /** Forgets every cookie, or those of one host. */
  clear(host?: string | URL): void {
    if (host === undefined) this.cookies = []
    else {
      const hostname = hostnameOf(host)
      this.cookies = this.cookies.filter((c) => c.domain !== hostname)
    }
  }

  private live(): Cookie[] {
    const now = Date.now()
    this.cookies = this.cookies.filter((c) => c.expires === undefined || c.expires > now)
    return this.cookies
  }
}

/** One Set-Cookie line as written: its cookie, then its attributes in order. */
export interface SetCookieLine {
  name: string
  value: string
  /** Attribute names lower-cased, values as sent (trimmed); `true` for an attribute without `=` (Secure, HttpOnly). */
  attributes: Array<[name: string, value: string | true]>
}

/**
 * Splits a Set-Cookie line as RFC 6265 §5.2 says; undefined when it holds no cookie (no `=` in
 * its first part, or an empty name). What the attributes mean is left to the reader.
 */
export function splitSetCookie(line: string): SetCookieLine | undefined {
  const [pair = '', ...rest] = line.split(';')
  const eq = pair.indexOf('=')
  if (eq === -1) return undefined
  const name = pair.slice(0, eq).trim()
  if (!name) return undefined
  const attributes = rest.map((attribute): [string, string | true] => {
    const at = attribute.indexOf('=')
    if (at === -1) return [attribute.trim().toLowerCase(), true]
    return [attribute.slice(0, at).trim().toLowerCase(), attribute.slice(at + 1).trim()]
  })
  return { name, value: pair.slice(eq + 1).trim(), attributes }
}

/** Parses a Set-Cookie line received from `from`; undefined when a browser would ignore it. */
export function parseSetCookie(line: string, from: URL, now = Date.now()): Cookie | undefined {
  const split = splitSetCookie(line)
  if (!split) return undefined
  const cookie: Cookie = {
    name: split.name,
    value: split.value,
    domain: from.hostname,
    hostOnly: true,
    path: defaultPath(from.pathname),
    httpOnly: false,
    secure: false,
  }

  let maxAge: number | undefined
  let expires: number | undefined
  for (const [key, raw] of split.attributes) {
    const value = raw === true ? '' : raw
    switch (key) {
      case 'domain': {
        const domain = value.replace(/^\./, '').toLowerCase()
        if (!domain) break
        if (!domainMatch(from.hostname, domain)) return undefined // may not set cookies for another site
        cookie.domain = domain
        cookie.hostOnly = false
        break
      }
      case 'path':
        if (value.startsWith('/')) cookie.path = value
        break
      case 'max-age':
        if (/^-?\d+$/.test(value)) maxAge = Number(value)
        break
      case 'expires': {
        const time = Date.parse(value)
        if (!Number.isNaN(time)) expires = time
        break
      }
      case 'secure':
        cookie.secure = true
        break
      case 'httponly':
        cookie.httpOnly = true
        break
      case 'samesite': {
        const sameSite = ({ strict: 'Strict', lax: 'Lax', none: 'None' } as const)[
          value.toLowerCase() as 'strict' | 'lax' | 'none'
        ]
        if (sameSite) cookie.sameSite = sameSite
        break
      }
    }
  }
  // Max-Age wins over Expires; Max-Age <= 0 means "delete now".
  if (maxAge !== undefined) cookie.expires = maxAge <= 0 ? 0 : now + maxAge * 1000
  else if (expires !== undefined) cookie.expires = expires

  // The checks browsers make before accepting a cookie.
  if (cookie.secure && !isSecureOrigin(from)) return undefined
  if (cookie.sameSite === 'None' && !cookie.secure) return undefined
  if (/^__secure-/i.test(cookie.name) && !cookie.secure) return undefined
  if (/^__host-/i.test(cookie.name) && !(cookie.secure && cookie.hostOnly && cookie.path === '/')) return undefined
  return cookie
}

/** RFC 6265 §5.1.3: `host` is `domain` or one of its subdomains (IP addresses only match exactly). */
function domainMatch(host: string, domain: string): boolean {
  if (host === domain) return true
  return host.endsWith(`.${domain}`) && !/^[\d.]+$|^\[/.test(host)
}

/** RFC 6265 §5.1.4. */
function pathMatch(requestPath: string, cookiePath: string): boolean {
  if (requestPath === cookiePath) return true
  if (!requestPath.startsWith(cookiePath)) return false
  return cookiePath.endsWith('/') || requestPath.charAt(cookiePath.length) === '/'
}

/** The directory of the request path: a cookie set without Path applies there (RFC 6265 §5.1.4). */
function defaultPath(pathname: string): string {
  const slash = pathname.lastIndexOf('/')
  return slash <= 0 ? '/' : pathname.slice(0, slash)
}

function isSecureOrigin(url: URL): boolean {
  if (url.protocol === 'https:') return true
  const host = url.hostname
  return host === 'localhost' || host.endsWith('.localhost') || /^127\.\d+\.\d+\.\d+$/.test(host) || host === '[::1]'
}

function hostnameOf(host: string | URL): string {
  if (host instanceof URL) return host.hostname
  return new URL(/^[a-z][a-z\d+.-]*:\/\//i.test(host) ? host : `http://${host}`).hostname
}
