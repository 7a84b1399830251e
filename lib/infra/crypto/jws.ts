import { createPublicKey, verify, webcrypto, type KeyObject } from 'node:crypto'
import { parseJsonObject } from '../util/json'
import { decodeBase64url } from './base64url'

/**
 * Verifies a compact JWS (an OpenID Connect ID token, a back-channel logout token) against a JSON
 * Web Key Set. Only asymmetric algorithms are accepted: `none` and HMAC algorithms (which would let
 * a client secret or a public key act as the signing key) are refused outright.
 */
interface Algorithm {
  readonly hash: string | null
  readonly kty: string
  readonly ieee?: boolean
  readonly pss?: boolean
}

// A Map: the token's own `alg` picks the entry, and `constructor` must not find anything.
const ALGORITHMS: ReadonlyMap<string, Algorithm> = new Map(
  Object.entries({
    RS256: { hash: 'sha256', kty: 'RSA' },
    RS384: { hash: 'sha384', kty: 'RSA' },
    RS512: { hash: 'sha512', kty: 'RSA' },
    PS256: { hash: 'sha256', kty: 'RSA', pss: true },
    PS384: { hash: 'sha384', kty: 'RSA', pss: true },
    PS512: { hash: 'sha512', kty: 'RSA', pss: true },
    ES256: { hash: 'sha256', kty: 'EC', ieee: true },
    ES384: { hash: 'sha384', kty: 'EC', ieee: true },
    ES512: { hash: 'sha512', kty: 'EC', ieee: true },
    EdDSA: { hash: null, kty: 'OKP' },
  } satisfies Record<string, Algorithm>),
)

export interface Jwk extends webcrypto.JsonWebKey {
  kid?: string
  alg?: string
  use?: string
}

export interface DecodedJws {
  readonly header: Record<string, unknown>
  readonly payload: Record<string, unknown>
}

/**
 * The header and payload of a compact JWS, unverified; null when it is not one, or when a part is
 * spelled in anything but canonical base64url.
 */
export function decodeJws(token: unknown): (DecodedJws & { signingInput: string; signature: Buffer }) | null {
  if (typeof token !== 'string' || token.length > 16384) return null
  const parts = token.split('.')
  if (parts.length !== 3) return null
  const [headerBytes, payloadBytes, signature] = parts.map(decodeBase64url)
  if (!headerBytes || !payloadBytes || !signature) return null
  const header = parseJsonObject(headerBytes.toString('utf8'))
  const payload = parseJsonObject(payloadBytes.toString('utf8'))
  if (!header || !payload) return null
  return { header, payload, signingInput: `${parts[0]}.${parts[1]}`, signature }
}

/** The payload when the signature verifies with a key of `keys`, else null. Never throws. */
export function verifyJws(token: unknown, keys: readonly Jwk[]): DecodedJws | null {
  const decoded = decodeJws(token)
  if (!decoded) return null
  const { header } = decoded
  const alg = typeof header.alg === 'string' ? ALGORITHMS.get(header.alg) : undefined
  if (!alg || header.crit !== undefined) return null
  const candidates = keys.filter(
    (key) =>
      key !== null &&
      typeof key === 'object' &&
      key.kty === alg.kty &&
      (key.use === undefined || key.use === 'sig') &&
      (key.alg === undefined || key.alg === header.alg) &&
      (header.kid === undefined || key.kid === header.kid),
  )
  for (const jwk of candidates) {
    const key = importKey(jwk)
    if (key && checkSignature(alg, key, decoded.signingInput, decoded.signature))
      return { header, payload: decoded.payload }
  }
  return null
}

function checkSignature(alg: Algorithm, key: KeyObject, input: string, signature: Buffer): boolean {
  try {
    const options = alg.ieee
      ? { key, dsaEncoding: 'ieee-p1363' as const }
      : alg.pss
        ? { key, padding: 6, saltLength: -1 }
        : key
    // RSA-PSS: padding 6 is RSA_PKCS1_PSS_PADDING; saltLength -1 means "the digest length".
    return verify(alg.hash, Buffer.from(input), options, signature)
  } catch {
    return false
  }
}

function importKey(jwk: Jwk): KeyObject | null {
  try {
    // Node's own JsonWebKey type (not exported by every @types/node) is this one with an index signature.
    return createPublicKey({ key: { ...jwk }, format: 'jwk' })
  } catch {
    return null
  }
}
