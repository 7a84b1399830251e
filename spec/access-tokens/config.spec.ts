import { generateKeyPairSync } from 'node:crypto'
import { auth, type AccessTokensOptions } from '../../lib'
import { derivedSigningKey } from '../../lib/infra/crypto/signing-keys'
import { SECRET } from '../support/app'
import { configError } from '../support/config-error'

/** `accessTokens` mistakes fail at auth(), naming the option and the fix; derived keys agree across instances. */
const API = 'https://api.example.com'
const make =
  (accessTokens: unknown, more: Record<string, unknown> = {}) =>
  () =>
    auth({
      url: 'https://app.example.com/api/auth',
      secret: SECRET,
      logger: false,
      accessTokens: accessTokens as AccessTokensOptions,
      ...more,
    })

describe('accessTokens options', () => {
  it.each([
    ['not an object', 'yes', '`accessTokens` must be an object'],
    ['no audiences', {}, '`accessTokens.audiences` is required'],
    ['an empty list', { audiences: [] }, '`accessTokens.audiences` is required'],
    ['a relative audience', { audiences: ['/api'] }, '`accessTokens.audiences[0]` must be an absolute http(s) URL'],
    ['another scheme', { audiences: [API, 'ftp://files.example'] }, '`accessTokens.audiences[1]`'],
    ['a fragment', { audiences: [`${API}#x`] }, '`accessTokens.audiences[0]`'],
    [
      'maxAge too short',
      { audiences: [API], maxAge: 5 },
      '`accessTokens.maxAge` must be a whole number of seconds from 10 to 3600',
    ],
    ['maxAge too long', { audiences: [API], maxAge: 86_400 }, '`accessTokens.maxAge`'],
    [
      'claims not a function',
      { audiences: [API], claims: { plan: 'pro' } },
      '`accessTokens.claims` must be a function',
    ],
    ['an unknown alg', { audiences: [API], alg: 'RS256' }, "`accessTokens.alg` must be 'EdDSA' or 'ES256'"],
    ['an unknown option', { audiences: [API], issuer: 'x' }, 'Unknown option `accessTokens.issuer`'],
    ['no keys listed', { audiences: [API], keys: [] }, '`accessTokens.keys` must list private keys'],
    [
      'a public key',
      { audiences: [API], keys: [generateKeyPairSync('ed25519').publicKey] },
      '`accessTokens.keys[0]`: a signing key must be a private key',
    ],
    [
      'an RSA key',
      { audiences: [API], keys: [generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey] },
      'must be Ed25519 (EdDSA) or P-256 (ES256); got rsa',
    ],
    [
      'a P-384 key',
      { audiences: [API], keys: [generateKeyPairSync('ec', { namedCurve: 'P-384' }).privateKey] },
      'got ec on secp384r1',
    ],
  ])('refuses %s', (_case, options, message) => {
    expect(configError(make(options))).toContain(message)
  })

  it('needs `url`: the issuer cannot come from a Host header', () => {
    expect(configError(make({ audiences: [API] }, { url: undefined, trustHost: true }))).toContain(
      '`accessTokens` needs `url`',
    )
  })

  it('takes a P-256 key as PEM and an Ed25519 key as a JWK', () => {
    const pem = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'pem', type: 'pkcs8' })
    const jwk = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' })
    expect(make({ audiences: [API], keys: [String(pem), jwk] })).not.toThrow()
  })

  it('derives the same key pair from the same secret (every instance agrees), another from another', () => {
    for (const alg of ['EdDSA', 'ES256'] as const) {
      const one = derivedSigningKey(SECRET, alg)
      expect(derivedSigningKey(SECRET, alg).publicJwk).toEqual(one.publicJwk)
      expect(derivedSigningKey(`${SECRET}-other`, alg).kid).not.toBe(one.kid)
      expect(one.publicJwk).not.toHaveProperty('d')
    }
  })
})
