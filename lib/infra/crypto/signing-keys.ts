import {
  createECDH,
  createHash,
  createPrivateKey,
  createPublicKey,
  sign,
  type KeyObject,
  type webcrypto,
} from 'node:crypto'

type JsonWebKey = webcrypto.JsonWebKey
import { deriveKey } from './keys'

/**
 * Key pairs that sign JSON Web Tokens (access tokens, lib/features/access-tokens/), and the signing
 * itself. A pair is derived from a secret under its own HKDF purpose, so every instance given the
 * same secret signs with the same key and publishes the same public key, and nothing is stored;
 * or it is the app's own private key.
 */

export type SigningAlg = 'EdDSA' | 'ES256'

/** A private key as an app gives it: a KeyObject, a PEM text, or a private JWK. */
export type PrivateKeyInput = KeyObject | string | JsonWebKey

export interface SigningKey {
  readonly alg: SigningAlg
  /** The RFC 7638 thumbprint of the public key (base64url SHA-256), or the app's own `kid`. */
  readonly kid: string
  readonly privateKey: KeyObject
  /** The public key as a JWK with `kid`, `alg` and `use: 'sig'`: what `/jwks` publishes. */
  readonly publicJwk: Readonly<Record<string, string>>
}

// PKCS #8 for an Ed25519 private key is this fixed prefix and the 32-byte seed (RFC 8410).
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex')
// The order of P-256's group (FIPS 186-4), less one: a derived scalar is reduced into [1, n - 1].
const P256_ORDER_LESS_ONE = BigInt('0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632550')

/** The key pair `secret` derives for `alg`. */
export function derivedSigningKey(secret: string, alg: SigningAlg): SigningKey {
  if (alg === 'EdDSA') {
    const seed = deriveKey(secret, 'access-token-eddsa')
    const der = Buffer.concat([ED25519_PKCS8_PREFIX, seed])
    return signingKey(createPrivateKey({ key: der, format: 'der', type: 'pkcs8' }))
  }
  // 48 bytes reduced modulo n - 1 (FIPS 186-4 B.4.1): a bias of 2^-128, none that matters.
  const wide = deriveKey(secret, 'access-token-es256', 48)
  const scalar = (BigInt(`0x${wide.toString('hex')}`) % P256_ORDER_LESS_ONE) + 1n
  const d = Buffer.from(scalar.toString(16).padStart(64, '0'), 'hex')
  const ecdh = createECDH('prime256v1')
  ecdh.setPrivateKey(d)
  const point = ecdh.getPublicKey()
  const jwk = {
    kty: 'EC',
    crv: 'P-256',
    d: d.toString('base64url'),
    x: point.subarray(1, 33).toString('base64url'),
    y: point.subarray(33, 65).toString('base64url'),
  }
  return signingKey(createPrivateKey({ key: jwk, format: 'jwk' }))
}

/**
 * An app's own private key (a KeyObject, a PEM text, or a private JWK): Ed25519 signs with EdDSA,
 * P-256 with ES256; anything else throws, naming what it got. `kid`: the app's, else the thumbprint.
 */
export function ownSigningKey(key: KeyObject | string | JsonWebKey, kid?: string): SigningKey {
  const privateKey =
    typeof key === 'string'
      ? createPrivateKey(key)
      : isKeyObject(key)
        ? key
        : createPrivateKey({ key: { ...key }, format: 'jwk' })
  if (privateKey.type !== 'private') throw new TypeError('a signing key must be a private key')
  return signingKey(privateKey, kid)
}

function isKeyObject(key: KeyObject | JsonWebKey): key is KeyObject {
  return typeof (key as KeyObject).export === 'function' && typeof (key as KeyObject).type === 'string'
}

function signingKey(privateKey: KeyObject, kid?: string): SigningKey {
  const alg = algOf(privateKey)
  const publicJwk = createPublicKey(privateKey).export({ format: 'jwk' }) as Record<string, string>
  const members = alg === 'EdDSA' ? ['crv', 'kty', 'x'] : ['crv', 'kty', 'x', 'y']
  // RFC 7638: the required members in lexicographic order, no white space.
  const canonical = JSON.stringify(Object.fromEntries(members.map((name) => [name, publicJwk[name]])))
  const id = kid ?? createHash('sha256').update(canonical).digest('base64url')
  const published = Object.freeze({ ...publicJwk, kid: id, alg, use: 'sig' })
  return Object.freeze({ alg, kid: id, privateKey, publicJwk: published })
}

function algOf(key: KeyObject): SigningAlg {
  if (key.asymmetricKeyType === 'ed25519') return 'EdDSA'
  if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') return 'ES256'
  throw new TypeError(
    `a signing key must be Ed25519 (EdDSA) or P-256 (ES256); got ${key.asymmetricKeyType ?? 'an unknown type'}${
      key.asymmetricKeyDetails?.namedCurve ? ` on ${key.asymmetricKeyDetails.namedCurve}` : ''
    }`,
  )
}

/** A compact JWS of `payload` under `key`, with `typ` and the key's `alg` and `kid` in its header. */
export function signJwt(key: SigningKey, typ: string, payload: Readonly<Record<string, unknown>>): string {
  const header = Buffer.from(JSON.stringify({ alg: key.alg, typ, kid: key.kid })).toString('base64url')
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url')
  const input = Buffer.from(`${header}.${body}`)
  const signature =
    key.alg === 'EdDSA'
      ? sign(null, input, key.privateKey)
      : sign('sha256', input, { key: key.privateKey, dsaEncoding: 'ieee-p1363' })
  return `${header}.${body}.${signature.toString('base64url')}`
}
