import { boundedCache } from '../util/cache'
import { randomToken } from '../crypto/random'
import { mac, safeEqual, verifyMac } from '../crypto/mac'
import type { KeyRing } from '../crypto/keys'

/**
 * Signed double-submit CSRF. The cookie holds `<token>|<mac>`; a POST must carry the same
 * `<token>` in its body field `csrfToken`. The MAC (keyed with the CSRF key, not a plain hash)
 * stops a sibling subdomain or a cookie-injection bug from planting a pair of its own choosing.
 */
export interface CsrfIssue {
  readonly token: string
  readonly cookieValue: string
}

export interface Csrf {
  /** The token inside a valid cookie, else null. */
  read(cookieValue: unknown): string | null
  /**
   * The token inside a valid cookie and whether its MAC is under a secret that is no longer the
   * first one (rotated out: the cookie should be signed again), else null.
   */
  inspect(cookieValue: unknown): { readonly token: string; readonly stale: boolean } | null
  issue(): CsrfIssue
  /** The same token, signed with the current secret. */
  resign(token: string): CsrfIssue
  /** True when the cookie is valid and the submitted token equals its token. */
  verify(cookieValue: unknown, submitted: unknown): boolean
}

const MAX_COOKIE_LENGTH = 256
/** How many verified cookies are remembered: at most 10 000 × 256 characters. */
const VERIFIED_CACHE_SIZE = 10_000

interface Inspected {
  readonly token: string
  readonly stale: boolean
}

export function createCsrf(ring: KeyRing): Csrf {
  // Cookies found valid under the current secret, by their exact value: the keys never change while
  // the process runs, so such a cookie stays valid, and `GET /csrf` and every POST skip the HMAC.
  // Only valid values are kept, so an attacker's guesses never fill it, and a value that differs in
  // one byte is a different key and is checked in full.
  const verified = boundedCache<string, Inspected>(VERIFIED_CACHE_SIZE)

  function inspect(cookieValue: unknown): Inspected | null {
    if (typeof cookieValue !== 'string' || cookieValue.length > MAX_COOKIE_LENGTH) return null
    const known = verified.get(cookieValue)
    if (known !== undefined) return known
    const bar = cookieValue.indexOf('|')
    if (bar <= 0) return null
    const token = cookieValue.slice(0, bar)
    const candidate = cookieValue.slice(bar + 1)
    if (safeEqual(mac(ring.current, token), candidate)) return remember(cookieValue, token)
    return verifyMac(ring, candidate, token) ? { token, stale: true } : null
  }
  function remember(cookieValue: string, token: string): Inspected {
    const found = Object.freeze({ token, stale: false })
    verified.set(cookieValue, found)
    return found
  }
  const read = (cookieValue: unknown) => inspect(cookieValue)?.token ?? null
  // A cookie is remembered when it first comes back, not when it is issued: most issued cookies never
  // come back (crawlers, one-page visits), and the cache would churn on every `GET /csrf` without one.
  const resign = (token: string): CsrfIssue => ({ token, cookieValue: `${token}|${mac(ring.current, token)}` })

  return Object.freeze({
    read,
    inspect,
    resign,
    issue: () => resign(randomToken(32)),
    verify(cookieValue: unknown, submitted: unknown): boolean {
      const token = read(cookieValue)
      if (token === null || typeof submitted !== 'string') return false
      return safeEqual(token, submitted)
    },
  })
}
