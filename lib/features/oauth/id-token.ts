import { errorText } from '../../infra/logger'
import { decodeJws, verifyJws, type Jwk } from '../../infra/crypto/jws'
import { safeEqual } from '../../infra/crypto/mac'
import type { JwksCache } from './oidc-discovery'

/** Tolerated clock difference with the provider, in seconds. */
export const CLOCK_SKEW = 60

export type IdTokenResult = { ok: true; claims: Record<string, unknown> } | { ok: false; reason: string }

/**
 * The issuer's keys for a token. A key id the set does not have means the issuer rotated its keys:
 * they are fetched again (through `refresh`), once. `current`: the keys as they are (the logout
 * route passes one that does not fetch again after a failure within 30 s).
 */
export async function issuerKeys(
  token: unknown,
  jwks: JwksCache,
  refresh: () => Promise<Jwk[]>,
  current: () => Promise<Jwk[]> = jwks.current,
): Promise<Jwk[] | { ok: false; reason: string }> {
  try {
    const keys = await current()
    const kid = decodeJws(token)?.header.kid
    return typeof kid === 'string' && !keys.some((key) => key.kid === kid) ? await refresh() : keys
  } catch (error) {
    return { ok: false, reason: `the issuer keys could not be fetched: ${errorText(error)}` }
  }
}

/** Verifies an ID token: signature by the issuer's keys, then iss, aud (and azp), exp and nonce. */
export async function verifyIdToken(
  idToken: unknown,
  expected: { issuer: string; clientId: string; nonce?: string },
  jwks: JwksCache,
): Promise<IdTokenResult> {
  const keys = await issuerKeys(idToken, jwks, jwks.refresh)
  if (!Array.isArray(keys)) return keys
  const verified = verifyJws(idToken, keys)
  if (!verified) return { ok: false, reason: 'the ID token signature did not verify with the issuer keys' }
  const claims = verified.payload
  const now = Math.floor(Date.now() / 1000)
  const audience = Array.isArray(claims.aud) ? claims.aud : [claims.aud]
  if (claims.iss !== expected.issuer) return { ok: false, reason: 'the ID token was issued by another issuer' }
  if (!audience.includes(expected.clientId)) return { ok: false, reason: 'the ID token is for another client' }
  if (audience.length > 1 && claims.azp !== expected.clientId)
    return { ok: false, reason: 'the ID token azp names another client' }
  if (typeof claims.exp !== 'number' || claims.exp + CLOCK_SKEW < now)
    return { ok: false, reason: 'the ID token has expired' }
  if (typeof claims.sub !== 'string' || claims.sub === '') return { ok: false, reason: 'the ID token has no subject' }
  if (expected.nonce !== undefined && (typeof claims.nonce !== 'string' || !safeEqual(claims.nonce, expected.nonce)))
    return { ok: false, reason: 'the ID token nonce does not match the flow' }
  return { ok: true, claims }
}
