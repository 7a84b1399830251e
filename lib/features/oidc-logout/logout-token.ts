import { verifyJws } from '../../infra/crypto/jws'
import { isRecord } from '../../infra/util/object'
import { CLOCK_SKEW, issuerKeys } from '../oauth/id-token'
import type { JwksCache } from '../oauth/oidc-discovery'

/** The event a logout token must hold (OpenID Connect Back-Channel Logout 1.0, §2.4). */
export const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout'

/**
 * How old a logout token may be (its `iat`), in seconds: a provider sends it as it signs it. A used
 * `jti` is kept as long as a token carrying it could pass this check.
 */
export const LOGOUT_TOKEN_MAX_AGE = 300
export const JTI_KEPT_SECONDS = LOGOUT_TOKEN_MAX_AGE + 2 * CLOCK_SKEW

/** Who a valid logout token names: the provider's session, else its subject; and its id. */
export interface LogoutClaims {
  readonly sid: string | null
  readonly sub: string | null
  readonly jti: string
}

export type LogoutTokenResult = { ok: true; claims: LogoutClaims } | { ok: false; reason: string }

/** `typ` values a logout token may carry (§2.4 recommends `logout+jwt`); an ID token's or an access token's others are refused. */
const TYPES: ReadonlySet<string> = new Set(['jwt', 'logout+jwt', 'application/logout+jwt'])

const nonEmpty = (value: unknown): value is string => typeof value === 'string' && value !== '' && value.length <= 1024

/**
 * Validates a logout token as §2.6 says: signed by the issuer's keys (asymmetric algorithms only:
 * `none` and HMAC are refused by lib/infra/crypto/jws.ts), then `iss`, `aud` (and `azp`), `iat` within
 * LOGOUT_TOKEN_MAX_AGE and the clock skew, `exp` when present, the back-channel logout event, no
 * `nonce` (so that an ID token is never taken for one), a `sid` or a `sub`, and a `jti`. Whether
 * the jti was seen before is the caller's check (it needs the store). Never throws.
 */
export async function verifyLogoutToken(
  token: unknown,
  expected: { issuer: string; clientId: string },
  jwks: JwksCache,
): Promise<LogoutTokenResult> {
  const keys = await issuerKeys(token, jwks, jwks.refreshSeldom, jwks.currentSeldom)
  if (!Array.isArray(keys)) return keys
  const verified = verifyJws(token, keys)
  if (!verified) return { ok: false, reason: 'the signature did not verify with the issuer keys' }
  const { header, payload: claims } = verified
  if (header.typ !== undefined && !(typeof header.typ === 'string' && TYPES.has(header.typ.toLowerCase())))
    return { ok: false, reason: 'its typ is not that of a logout token' }
  const audience: unknown[] = Array.isArray(claims.aud) ? claims.aud : [claims.aud]
  if (claims.iss !== expected.issuer) return { ok: false, reason: 'it was issued by another issuer' }
  if (!audience.includes(expected.clientId)) return { ok: false, reason: 'it is for another client' }
  if (audience.length > 1 && claims.azp !== undefined && claims.azp !== expected.clientId)
    return { ok: false, reason: 'its azp names another client' }
  const now = Math.floor(Date.now() / 1000)
  const { iat, exp } = claims
  if (typeof iat !== 'number' || iat > now + CLOCK_SKEW || iat < now - LOGOUT_TOKEN_MAX_AGE - CLOCK_SKEW)
    return { ok: false, reason: 'its iat is missing, in the future or too old' }
  if (exp !== undefined && !(typeof exp === 'number' && exp + CLOCK_SKEW >= now))
    return { ok: false, reason: 'it has expired' }
  if (!isRecord(claims.events) || !isRecord(claims.events[BACKCHANNEL_LOGOUT_EVENT]))
    return { ok: false, reason: 'it has no back-channel logout event' }
  if (claims.nonce !== undefined) return { ok: false, reason: 'it carries a nonce' }
  const sid = nonEmpty(claims.sid) ? claims.sid : null
  const sub = nonEmpty(claims.sub) ? claims.sub : null
  if ((claims.sid !== undefined && sid === null) || (claims.sub !== undefined && sub === null))
    return { ok: false, reason: 'its sid or sub is not a string' }
  if (sid === null && sub === null) return { ok: false, reason: 'it names neither a sid nor a sub' }
  if (!nonEmpty(claims.jti)) return { ok: false, reason: 'it has no jti' }
  return { ok: true, claims: { sid, sub, jti: claims.jti } }
}
