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
  issue(): CsrfIssue
  /** True when the cookie is valid and the submitted token equals its token. */
  verify(cookieValue: unknown, submitted: unknown): boolean
}

const MAX_COOKIE_LENGTH = 256

export function createCsrf(ring: KeyRing): Csrf {
  function read(cookieValue: unknown): string | null {
    if (typeof cookieValue !== 'string' || cookieValue.length > MAX_COOKIE_LENGTH) return null
    const bar = cookieValue.indexOf('|')
    if (bar <= 0) return null
    const token = cookieValue.slice(0, bar)
    return verifyMac(ring, cookieValue.slice(bar + 1), token) ? token : null
  }

  return Object.freeze({
    read,
    issue(): CsrfIssue {
      const token = randomToken(32)
      return { token, cookieValue: `${token}|${mac(ring.current, token)}` }
    },
    verify(cookieValue: unknown, submitted: unknown): boolean {
      const token = read(cookieValue)
      if (token === null || typeof submitted !== 'string') return false
      return safeEqual(token, submitted)
    },
  })
}
