import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { exportJWK, exportSPKI, generateKeyPair, SignJWT, UnsecuredJWT, type JWK, type KeyLike } from 'jose'
import { verifyJws, type Jwk } from '../../../lib/infra/crypto/jws'
import { verifyIdToken } from '../../../lib/features/oauth/id-token'
import { jwksCache } from '../../../lib/features/oauth/oidc-discovery'
import { restoreClock, useClock } from '../../support/clock'

const ISSUER = 'https://idp.example.com'
const CLIENT = 'the-app'
const EXPECTED = { issuer: ISSUER, clientId: CLIENT, nonce: 'the-flow-nonce' }
const now = () => Math.floor(Date.now() / 1000)

interface Signer {
  alg: string
  kid: string
  privateKey: KeyLike
  publicKey: KeyLike
  jwk: JWK
}

async function signer(alg: string, kid = `${alg}-key`): Promise<Signer> {
  const { publicKey, privateKey } = await generateKeyPair(alg)
  return { alg, kid, privateKey, publicKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } }
}

/** An ID token from `key`: valid for EXPECTED unless `claims` say otherwise (undefined removes a claim). */
function idToken(
  key: Signer,
  claims: Record<string, unknown> = {},
  header: Record<string, unknown> = {},
): Promise<string> {
  const payload = {
    iss: ISSUER,
    aud: CLIENT,
    sub: 'alice',
    nonce: EXPECTED.nonce,
    iat: now(),
    exp: now() + 300,
    ...claims,
  }
  return new SignJWT(payload).setProtectedHeader({ alg: key.alg, kid: key.kid, ...header }).sign(key.privateKey)
}

/** A JWKS endpoint on 127.0.0.1 that serves `keys` and counts how often it is fetched. */
function jwksServer() {
  const served = { keys: [] as unknown[], fetches: 0 }
  const server = createServer((_req, res) => {
    served.fetches++
    res.setHeader('content-type', 'application/json')
    res.end(JSON.stringify({ keys: served.keys }))
  })
  const uri = new Promise<string>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`)),
  )
  const close = () =>
    new Promise((resolve) => {
      server.closeAllConnections()
      server.close(resolve)
    })
  return { served, uri, close }
}

let rs256: Signer, es256: Signer, ps256: Signer, eddsa: Signer
const issuer = jwksServer()
let jwks: ReturnType<typeof jwksCache>

beforeAll(async () => {
  ;[rs256, es256, ps256, eddsa] = await Promise.all([
    signer('RS256'),
    signer('ES256'),
    signer('PS256'),
    signer('EdDSA'),
  ])
  issuer.served.keys = [rs256, es256, ps256, eddsa].map((key) => key.jwk)
  jwks = jwksCache(await issuer.uri, 5000)
})
afterAll(() => issuer.close())

describe('verifyIdToken', () => {
  it.each(['RS256', 'ES256', 'PS256', 'EdDSA'])('gives the claims of a valid ID token signed with %s', async (alg) => {
    const key = [rs256, es256, ps256, eddsa].find((candidate) => candidate.alg === alg)!
    const result = await verifyIdToken(await idToken(key), EXPECTED, jwks)
    expect(result).toEqual({
      ok: true,
      claims: expect.objectContaining({ iss: ISSUER, aud: CLIENT, sub: 'alice', nonce: EXPECTED.nonce }),
    })
  })

  it('accepts several audiences when azp names this client, a token expired within the 60 s skew, and no nonce when none is expected', async () => {
    const { nonce: _nonce, ...withoutNonce } = EXPECTED
    await expect(
      verifyIdToken(await idToken(rs256, { aud: ['other-app', CLIENT], azp: CLIENT }), EXPECTED, jwks),
    ).resolves.toMatchObject({ ok: true })
    await expect(verifyIdToken(await idToken(rs256, { exp: now() - 30 }), EXPECTED, jwks)).resolves.toMatchObject({
      ok: true,
    })
    await expect(verifyIdToken(await idToken(rs256, { nonce: undefined }), withoutNonce, jwks)).resolves.toMatchObject({
      ok: true,
    })
  })

  it('accepts a token that expired exactly 60 s ago (the skew), and refuses it a second later', async () => {
    const at = 1_800_000_000
    useClock(at)
    try {
      const token = await idToken(rs256, { iat: at - 600, exp: at - 60 })
      await expect(verifyIdToken(token, EXPECTED, jwks)).resolves.toMatchObject({ ok: true })
      useClock(at + 1)
      await expect(verifyIdToken(token, EXPECTED, jwks)).resolves.toEqual({
        ok: false,
        reason: 'the ID token has expired',
      })
    } finally {
      restoreClock()
    }
  })

  const refusals: Array<[string, Record<string, unknown>, RegExp]> = [
    ['issued by another issuer', { iss: 'https://evil.example.com' }, /another issuer/],
    ['for another client', { aud: 'other-app' }, /another client/],
    ['for several audiences without azp', { aud: [CLIENT, 'other-app'] }, /azp/],
    ['for several audiences with azp naming another client', { aud: [CLIENT, 'other-app'], azp: 'other-app' }, /azp/],
    ['expired beyond the 60 s skew', { exp: now() - 61 }, /expired/],
    ['without exp', { exp: undefined }, /expired/],
    ['without sub', { sub: undefined }, /no subject/],
    ['with an empty sub', { sub: '' }, /no subject/],
    ['with another nonce', { nonce: 'another-flow-nonce' }, /nonce/],
    ['without the nonce the flow expects', { nonce: undefined }, /nonce/],
  ]

  it.each(refusals)('refuses an ID token %s', async (_case, claims, reason) => {
    const result = await verifyIdToken(await idToken(es256, claims), EXPECTED, jwks)
    expect(result).toEqual({ ok: false, reason: expect.stringMatching(reason) })
  })

  it('refuses alg none and HS256, whether keyed with the client secret or the public key bytes', async () => {
    const hmac = (secret: string) =>
      new SignJWT({ iss: ISSUER, aud: CLIENT, sub: 'alice', exp: now() + 300 })
        .setProtectedHeader({ alg: 'HS256', kid: rs256.kid })
        .sign(new TextEncoder().encode(secret))
    const forged = [
      new UnsecuredJWT({ iss: ISSUER, aud: CLIENT, sub: 'alice', exp: now() + 300 }).encode(),
      await hmac('the-client-secret'),
      await hmac(await exportSPKI(rs256.publicKey)),
    ]
    for (const token of forged) {
      expect(verifyJws(token, issuer.served.keys as Jwk[])).toBeNull()
      expect(await verifyIdToken(token, EXPECTED, jwks)).toEqual({
        ok: false,
        reason: expect.stringMatching(/signature/),
      })
    }
  })

  it('refuses a token whose alg is not the one its key is published for', async () => {
    const confused = await idToken({ ...rs256, alg: 'PS256' })
    expect(verifyJws(confused, [rs256.jwk as Jwk])).toBeNull()
    expect(verifyJws(confused, [{ ...rs256.jwk, alg: undefined }])).not.toBeNull()
  })
})

describe('the issuer key cache', () => {
  it('refuses, without throwing, when the issuer keys cannot be fetched', async () => {
    const down = jwksServer()
    const uri = await down.uri
    await down.close()
    const result = await verifyIdToken(await idToken(rs256), EXPECTED, jwksCache(uri, 5000))
    expect(result).toEqual({ ok: false, reason: expect.stringMatching(/^the issuer keys could not be fetched/) })
  })

  it('fetches once, refetches once for a key it does not have, and accepts the key once the issuer serves it', async () => {
    const rotating = jwksServer()
    try {
      rotating.served.keys = [rs256.jwk]
      const cache = jwksCache(await rotating.uri, 5000)
      const next = await signer('ES256', 'next-key')
      await expect(verifyIdToken(await idToken(rs256), EXPECTED, cache)).resolves.toMatchObject({ ok: true })
      expect(rotating.served.fetches).toBe(1)

      await expect(verifyIdToken(await idToken(next), EXPECTED, cache)).resolves.toMatchObject({ ok: false })
      expect(rotating.served.fetches).toBe(2)

      rotating.served.keys = [rs256.jwk, next.jwk]
      await expect(verifyIdToken(await idToken(next), EXPECTED, cache)).resolves.toMatchObject({ ok: true })
      expect(rotating.served.fetches).toBe(3)
      await expect(verifyIdToken(await idToken(next), EXPECTED, cache)).resolves.toMatchObject({ ok: true })
      await expect(verifyIdToken(await idToken(rs256), EXPECTED, cache)).resolves.toMatchObject({ ok: true })
      expect(rotating.served.fetches).toBe(3)

      // Nor does a token that names no key: it is checked against the keys the cache has.
      await expect(verifyIdToken(await idToken(rs256, {}, { kid: undefined }), EXPECTED, cache)).resolves.toMatchObject(
        { ok: true },
      )
      expect(rotating.served.fetches).toBe(3)

      // A forged token naming a key the set has does not make the cache fetch again.
      const forger = await signer('RS256', rs256.kid)
      await expect(verifyIdToken(await idToken(forger), EXPECTED, cache)).resolves.toMatchObject({ ok: false })
      expect(rotating.served.fetches).toBe(3)
    } finally {
      await rotating.close()
    }
  })
})

describe('malformed tokens', () => {
  const b64 = (value: string) => Buffer.from(value).toString('base64url')
  const malformed: Array<[string, unknown]> = [
    ['undefined', undefined],
    ['a number', 42],
    ['an object', { alg: 'RS256' }],
    ['two parts', `${b64('{"alg":"RS256"}')}.${b64('{"sub":"alice"}')}`],
    ['four parts', 'a.b.c.d'],
    ['characters outside base64url', `${b64('{"alg":"RS256"}')}.${b64('{}')}+/=.sig`],
    ['a header that is not JSON', `${b64('not json')}.${b64('{}')}.sig`],
    ['a payload that is a JSON array', `${b64('{"alg":"RS256"}')}.${b64('[1]')}.sig`],
    ['an alg named after an Object.prototype member', `${b64('{"alg":"toString"}')}.${b64('{}')}.sig`],
    ['a crit header', `${b64('{"alg":"RS256","crit":["exp"]}')}.${b64('{}')}.sig`],
    ['20,000 characters', `${b64('{"alg":"RS256"}')}.${'A'.repeat(20000)}.sig`],
  ]

  it.each(malformed)(
    'gives null (verifyJws) and ok: false (verifyIdToken) for %s, without throwing',
    async (_case, token) => {
      expect(verifyJws(token, issuer.served.keys as Jwk[])).toBeNull()
      await expect(verifyIdToken(token, EXPECTED, jwks)).resolves.toEqual({
        ok: false,
        reason: expect.stringMatching(/signature/),
      })
    },
  )

  it('skips key set entries that are not keys, without throwing', async () => {
    const sloppy = jwksServer()
    try {
      sloppy.served.keys = [null, 'a string', {}, { kty: 'EC', crv: 'P-256', x: 'bad', y: 'bad' }, es256.jwk]
      const token = await idToken(es256)
      expect(() => verifyJws(token, sloppy.served.keys as Jwk[])).not.toThrow()
      await expect(verifyIdToken(token, EXPECTED, jwksCache(await sloppy.uri, 5000))).resolves.toMatchObject({
        ok: true,
      })
    } finally {
      await sloppy.close()
    }
  })
})
