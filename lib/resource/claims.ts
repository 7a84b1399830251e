import { AAL_ACR } from '../infra/assurance-acr'
import { decodeJws, verifyJws, type Jwk } from '../infra/crypto/jws'
import { sizedCache } from '../infra/util/cache'
import type { KeySet } from './key-set'
import type { ResolvedResourceOptions } from './options'

/**
 * The claims of an access token that passed every check (RFC 9068's profile, as the auth service
 * issues it): what `requireAccessToken()` leaves in `res.locals.accessToken`. The app's own claims
 * (the service's `accessTokens.claims`) come beside them, unchecked.
 */
export interface AccessTokenClaims {
  /** The auth service (`requireAccessToken`'s `issuer`). */
  readonly iss: string
  /** The user's id. */
  readonly sub: string
  /** The API(s) the token is for: one of them is this API's `audience`. */
  readonly aud: string | readonly string[]
  /** The client the token was issued to. */
  readonly client_id: string
  /** Issued at, expires at (seconds since the epoch). */
  readonly iat: number
  readonly exp: number
  /** The token's own id. */
  readonly jti: string
  /** The session the token was issued from (its handle): when it ends, so does the token, with `redis`. */
  readonly sid?: string
  /** When the user last proved who they are (seconds since the epoch). */
  readonly auth_time?: number
  /** How they did (RFC 8176: `pwd`, `otp`, `mfa`, …). */
  readonly amr?: readonly string[]
  /** The assurance level reached: AAL2's URI for two factors, AAL1's otherwise. */
  readonly acr?: string
  readonly nbf?: number
  readonly [claim: string]: unknown
}

/** What one token is found to be, before any look-up in Redis. */
export type TokenCheck =
  | { readonly kind: 'ok'; readonly claims: AccessTokenClaims }
  /** Not an access token for this API, or no longer valid: 401 invalid_token. */
  | { readonly kind: 'invalid'; readonly description: string }
  /** Valid, but the user proved too little or too long ago: 401 insufficient_user_authentication. */
  | { readonly kind: 'insufficient' }
  /** No key set was ever obtained, or the token names a key not held: fetch the set, then check again. */
  | { readonly kind: 'no keys' }
  | { readonly kind: 'unknown key' }

export const NOT_VALID = 'the access token is not valid'
export const EXPIRED = 'the access token expired'

/** `typ` as RFC 9068 gives it, the media type's `application/` prefix optional, in any case. */
const TYPES: ReadonlySet<string> = new Set(['at+jwt', 'application/at+jwt'])

/** How many tokens whose signature verified are remembered (`verifiedTokens` below), and in how much memory. */
export const VERIFIED_TOKENS = 10_000
export const VERIFIED_BYTES = 16 * 1024 * 1024

/** A token whose signature verified, with the key set it verified against. */
interface Verified {
  readonly payload: Record<string, unknown>
  readonly keys: readonly Jwk[]
}

/** The tokens of one `requireAccessToken()` whose signature verified. */
export type VerifiedTokens = ReturnType<typeof verifiedTokens>

/**
 * A signature is checked once per token, not once per request: a client sends the same token for
 * minutes, and an Ed25519 or P-256 check costs more than the rest of a request. Only a token that
 * verified is remembered (made-up ones cannot fill the cache), by its whole text (10,000 tokens and
 * 16 MB at most), against the key set it verified with: a key set fetched again (every 5 minutes,
 * or for a new key) checks it again, so a key the service withdrew stops a token within that time. Its claims are frozen (they are
 * every request's `res.locals.accessToken`) and checked on every request: expiry, `maxAge`.
 */
export function verifiedTokens() {
  // Counted by the token's text twice (the key, and the claims parsed from it) and a little more:
  // a user with a session can mint large tokens (the app's claims), never more than 16 MB of them.
  return sizedCache<string, Verified>(
    { entries: VERIFIED_TOKENS, maxSize: VERIFIED_BYTES },
    (_value, token) => 4 * token.length + 256,
  )
}

/** Checks a token against the keys held and the options; synchronous, never throws. */
export function checkToken(
  token: string,
  keys: KeySet,
  options: ResolvedResourceOptions,
  nowSeconds: number,
  verified: VerifiedTokens,
): TokenCheck {
  const held = keys.current()
  const known = held === null ? undefined : verified.get(token)
  if (known !== undefined && known.keys === held) return checkClaims(known.payload, options, nowSeconds)
  const decoded = decodeJws(token)
  if (decoded === null) return { kind: 'invalid', description: NOT_VALID }
  const { typ, kid } = decoded.header
  if (typeof typ !== 'string' || !TYPES.has(typ.toLowerCase())) return { kind: 'invalid', description: NOT_VALID }
  if (held === null) return { kind: 'no keys' }
  const verifiedJws = verifyJws(token, held)
  if (verifiedJws === null) {
    return typeof kid === 'string' && !keys.has(kid)
      ? { kind: 'unknown key' }
      : { kind: 'invalid', description: NOT_VALID }
  }
  const payload = deepFreeze(verifiedJws.payload)
  const check = checkClaims(payload, options, nowSeconds)
  // Only a token that is well formed and for this API: an expired one or another API's is not kept.
  if (check.kind !== 'invalid') verified.set(token, { payload, keys: held })
  return check
}

/** A JSON value frozen all the way down (claims are parsed JSON: no cycles). */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner)
    Object.freeze(value)
  }
  return value
}

function checkClaims(payload: Record<string, unknown>, options: ResolvedResourceOptions, now: number): TokenCheck {
  const { iss, aud, sub, client_id, jti, iat, exp, nbf, sid, auth_time, amr, acr } = payload
  const leeway = options.clockTolerance
  const wellFormed =
    iss === options.issuer &&
    audienceMatches(aud, options.audiences) &&
    nonEmpty(sub) &&
    nonEmpty(client_id) &&
    nonEmpty(jti) &&
    seconds(iat) &&
    seconds(exp) &&
    (nbf === undefined || seconds(nbf)) &&
    (sid === undefined || (nonEmpty(sid) && sid.length <= 512)) &&
    (auth_time === undefined || seconds(auth_time)) &&
    (amr === undefined || (Array.isArray(amr) && amr.every((method) => typeof method === 'string'))) &&
    (acr === undefined || typeof acr === 'string')
  if (!wellFormed) return { kind: 'invalid', description: NOT_VALID }
  const claims = payload as AccessTokenClaims
  if (claims.exp + leeway <= now) return { kind: 'invalid', description: EXPIRED }
  if (claims.iat > now + leeway || (claims.nbf !== undefined && claims.nbf > now + leeway))
    return { kind: 'invalid', description: NOT_VALID }
  return meetsStepUp(claims, options, now) ? { kind: 'ok', claims } : { kind: 'insufficient' }
}

/** `maxAge` and `aal`, as `requireAuth()` checks them on a session. A token without `auth_time` meets no `maxAge`. */
function meetsStepUp(claims: AccessTokenClaims, { maxAge, aal }: ResolvedResourceOptions, now: number): boolean {
  if (maxAge !== null && (claims.auth_time === undefined || now - claims.auth_time > maxAge)) return false
  return aal !== 2 || claims.acr === AAL_ACR[2] || (claims.amr?.includes('mfa') ?? false)
}

function audienceMatches(aud: unknown, audiences: ReadonlySet<string>): boolean {
  if (typeof aud === 'string') return audiences.has(aud)
  if (!Array.isArray(aud) || !aud.every((one) => typeof one === 'string')) return false
  return aud.some((one: string) => audiences.has(one))
}

const nonEmpty = (value: unknown): value is string => typeof value === 'string' && value !== ''

/** A time in seconds since the epoch, as JWT's NumericDate (fractions allowed). */
const seconds = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0
