import express, { type Response } from 'express'
import request from 'supertest'
import { requireAccessToken, type AccessTokenLocals, type RequireAccessTokenOptions } from '../../lib/resource'
import { AAL2, AUDIENCE, signJws, startIssuer, testKey, type TokenIssuer } from '../support/token-issuer'

/**
 * `requireAccessToken()` on an API of its own, against a JWKS served over HTTP on loopback: a good
 * token (EdDSA and ES256) reaches the handler with its claims in `res.locals.accessToken`; every
 * token that should not pass gets 401 `invalid_token` (expired, not yet valid, another audience or
 * issuer, `alg: none`, HS256 keyed with the public key, a key never published, a wrong `typ`); a
 * step-up that is not met gets RFC 9470's challenge; a missing or malformed Authorization header
 * gets RFC 6750's answers.
 */

const ed = testKey('EdDSA')
const es = testKey('ES256')
let issuer: TokenIssuer

beforeAll(async () => {
  issuer = await startIssuer(ed, es)
})

afterAll(() => issuer?.close())

function api(options: Partial<RequireAccessTokenOptions> = {}) {
  const app = express()
  app.get(
    '/me',
    requireAccessToken({ issuer: issuer.issuer, audience: AUDIENCE, ...options }),
    (_req, res: Response<unknown, AccessTokenLocals>) => {
      res.json(res.locals.accessToken)
    },
  )
  return app
}

const call = (app: express.Express, authorization?: string) => {
  const req = request(app).get('/me')
  return authorization === undefined ? req : req.set('Authorization', authorization)
}

const invalidToken = (description = 'the access token is not valid') =>
  `Bearer error="invalid_token", error_description="${description}"`

async function expectRefused(token: string, description?: string, app = api()) {
  const res = await call(app, `Bearer ${token}`)
  expect(res.status).toBe(401)
  expect(res.headers['www-authenticate']).toBe(invalidToken(description))
  expect(res.body).toEqual({
    error: 'invalid_token',
    error_description: description ?? 'the access token is not valid',
  })
  expect(res.headers['cache-control']).toBe('private, no-cache, no-store')
}

describe('a good token', () => {
  it.each([ed, es])('signed with $alg passes, every claim in res.locals.accessToken', async (key) => {
    const token = issuer.token(key)
    const res = await call(api(), `Bearer ${token}`)
    expect(res.status).toBe(200)
    const payload = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString())
    expect(res.body).toEqual(payload)
    expect(res.body).toMatchObject({ sub: 'user-1', client_id: 'web', aud: AUDIENCE, role: 'reader' })
  })

  it('passes with the scheme in any case, an audience among several, typ application/at+jwt, aud as a list', async () => {
    const app = api({ audience: ['https://other.example.com', AUDIENCE] })
    const token = issuer.token(ed, { aud: ['https://third.example', AUDIENCE] }, { typ: 'application/AT+JWT' })
    expect((await call(app, `bearer ${token}`)).status).toBe(200)
    expect((await call(app, `BEARER  ${token}`)).status).toBe(200)
  })

  it('passes within the clock tolerance, and not beyond it', async () => {
    const now = Math.floor(Date.now() / 1000)
    expect((await call(api(), `Bearer ${issuer.token(ed, { exp: now - 30 })}`)).status).toBe(200)
    expect((await call(api(), `Bearer ${issuer.token(ed, { nbf: now + 30, iat: now + 30 })}`)).status).toBe(200)
    await expectRefused(issuer.token(ed, { exp: now - 30 }), 'the access token expired', api({ clockTolerance: 0 }))
    await expectRefused(issuer.token(ed, { nbf: now + 30 }), undefined, api({ clockTolerance: 5 }))
  })
})

describe('a token that should not pass gets 401 invalid_token', () => {
  const now = () => Math.floor(Date.now() / 1000)

  it('expired', () => expectRefused(issuer.token(ed, { exp: now() - 61 }), 'the access token expired'))
  it('not valid yet (nbf)', () => expectRefused(issuer.token(ed, { nbf: now() + 120 })))
  it('issued in the future (iat)', () => expectRefused(issuer.token(ed, { iat: now() + 120 })))
  it('for another audience', () => expectRefused(issuer.token(ed, { aud: 'https://other.example.com' })))
  it('for no audience', () => expectRefused(issuer.token(ed, { aud: undefined })))
  it('from another issuer', () => expectRefused(issuer.token(ed, { iss: `${issuer.issuer}/` })))
  it('without a subject', () => expectRefused(issuer.token(ed, { sub: 42 })))
  it('with a wrong typ', () => expectRefused(issuer.token(ed, {}, { typ: 'JWT' })))
  it('without a typ', () => expectRefused(issuer.token(ed, {}, { typ: undefined })))

  it('with alg none', () => {
    const token = issuer.token(ed).split('.')
    const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt', kid: ed.kid })).toString('base64url')
    return expectRefused(`${header}.${token[1]}.`)
  })

  it('signed with HS256 keyed with the public key', async () => {
    const payload = JSON.parse(Buffer.from(issuer.token(ed).split('.')[1]!, 'base64url').toString())
    for (const secret of [
      ed.publicKey.export({ format: 'der', type: 'spki' }),
      Buffer.from(ed.publicKey.export({ format: 'pem', type: 'spki' })),
      Buffer.from(JSON.stringify(ed.jwk)),
    ])
      await expectRefused(signJws({ alg: 'HS256', typ: 'at+jwt', kid: ed.kid }, payload, secret))
  })

  it('signed with a key that was never published, under a published kid or one of its own', async () => {
    const stranger = testKey('EdDSA', ed.kid)
    await expectRefused(issuer.token(stranger))
    await expectRefused(issuer.token(testKey('ES256')))
  })

  it('with its payload changed after signing', () => {
    const [header, , signature] = issuer.token(ed).split('.')
    const payload = Buffer.from(JSON.stringify({ sub: 'admin' })).toString('base64url')
    return expectRefused(`${header}.${payload}.${signature}`)
  })

  it('signed with the ES256 key but naming EdDSA', () => expectRefused(issuer.token(es, {}, { alg: 'EdDSA' })))
})

describe('missing and malformed credentials', () => {
  it('no Authorization header: 401 with a bare Bearer challenge (no error code)', async () => {
    for (const authorization of [undefined, 'Basic dXNlcjpwYXNz']) {
      const res = await call(api(), authorization)
      expect(res.status).toBe(401)
      expect(res.headers['www-authenticate']).toBe('Bearer')
      expect(res.body).toEqual({})
    }
  })

  it('a Bearer header without one token: 400 invalid_request', async () => {
    for (const authorization of ['Bearer', 'Bearer ', 'Bearer a b', 'Bearer a,b', 'Bearer "x"']) {
      const res = await call(api(), authorization)
      expect(res.status).toBe(400)
      expect(res.headers['www-authenticate']).toMatch(/^Bearer error="invalid_request", error_description="/)
      expect(res.body).toMatchObject({ error: 'invalid_request' })
    }
  })

  it('a token in the query string or the body is never read', async () => {
    const token = issuer.token(ed)
    expect((await request(api()).get(`/me?access_token=${token}`)).status).toBe(401)
  })

  it('garbage after Bearer: 401 invalid_token, never a 500', async () => {
    for (const token of ['abc', 'a.b.c', 'e30.e30.', '...', `${'A'.repeat(40)}.${'B'.repeat(40)}.C`])
      await expectRefused(token)
  })
})

describe('step-up (RFC 9470)', () => {
  const now = () => Math.floor(Date.now() / 1000)

  it('maxAge: an auth_time older than that gets insufficient_user_authentication with max_age', async () => {
    const app = api({ maxAge: 300 })
    expect((await call(app, `Bearer ${issuer.token(ed, { auth_time: now() - 200 })}`)).status).toBe(200)
    for (const claims of [{ auth_time: now() - 400 }, { auth_time: undefined }]) {
      const res = await call(app, `Bearer ${issuer.token(ed, claims)}`)
      expect(res.status).toBe(401)
      expect(res.headers['www-authenticate']).toBe(
        'Bearer error="insufficient_user_authentication", error_description="A more recent or stronger authentication is required", max_age=300',
      )
      expect(res.body).toEqual({ error: 'insufficient_user_authentication', maxAge: 300 })
    }
  })

  it('aal 2: needs the AAL2 acr or mfa in amr, else acr_values', async () => {
    const app = api({ aal: 2 })
    expect((await call(app, `Bearer ${issuer.token(ed, { acr: AAL2 })}`)).status).toBe(200)
    expect((await call(app, `Bearer ${issuer.token(ed, { acr: undefined, amr: ['pwd', 'otp', 'mfa'] })}`)).status).toBe(
      200,
    )
    const res = await call(app, `Bearer ${issuer.token(ed, { amr: ['pwd'] })}`)
    expect(res.status).toBe(401)
    expect(res.headers['www-authenticate']).toBe(
      `Bearer error="insufficient_user_authentication", error_description="A more recent or stronger authentication is required", acr_values="${AAL2}"`,
    )
    expect(res.body).toEqual({ error: 'insufficient_user_authentication', aal: 2 })
  })
})
