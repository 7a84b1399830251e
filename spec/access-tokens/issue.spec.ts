import { generateKeyPairSync } from 'node:crypto'
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose'
import type { AuthOptions } from '../../lib'
import { Browser } from '../support/browser'
import { startHarness, type Harness } from '../support/oauth-harness'
import { sharedRedisForFile } from '../support/redis'

/**
 * `POST {base}/token` after a real OpenID Connect sign-in, its token verified the way any API
 * would: by `jose` against `GET {base}/jwks`, fetched over HTTP. Every claim, the refusals, the
 * app's claims, ES256 and the app's own keys, and a rotated `secret` whose old tokens still verify.
 */
jest.setTimeout(60_000)

const API = 'https://api.example.com'
const OTHER_API = 'https://reports.example.com/v1'
const db = sharedRedisForFile('access-tokens-issue')

let harness: Harness | undefined
afterEach(async () => {
  await harness?.stop()
  harness = undefined
})

async function signedIn(options: Partial<AuthOptions> = {}) {
  harness = await startHarness({ accessTokens: { audiences: [API, OTHER_API] }, ...options })
  const browser = new Browser(harness)
  const landed = await browser.signIn('oidc')
  expect(landed.status).toBe(302)
  return { harness, browser }
}

async function askToken(h: Harness, browser: Browser, body: Record<string, string> = {}) {
  return browser.jar.fetch(`${h.base}/token`, {
    method: 'POST',
    headers: { origin: h.origin },
    body: new URLSearchParams({ csrfToken: await browser.csrfToken(), ...body }),
  })
}

async function tokenOf(h: Harness, browser: Browser, body: Record<string, string> = {}): Promise<string> {
  const res = await askToken(h, browser, body)
  expect(res.status).toBe(200)
  return ((await res.json()) as { access_token: string }).access_token
}

const verifier = (h: Harness, audience = API) => {
  const keys = createRemoteJWKSet(new URL(`${h.base}/jwks`))
  return (token: string) => jwtVerify(token, keys, { issuer: h.base, audience, typ: 'at+jwt' })
}

describe('POST /token and GET /jwks', () => {
  it('issues an RFC 9068 token that jose verifies against /jwks over HTTP, with every claim', async () => {
    const { harness: h, browser } = await signedIn()
    const res = await askToken(h, browser)
    expect(res.status).toBe(200)
    expect(res.headers.get('cache-control')).toContain('no-store')
    const answer = (await res.json()) as Record<string, unknown>
    expect(answer).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 300 })
    const token = answer.access_token as string
    const { payload, protectedHeader } = await verifier(h)(token)
    expect(protectedHeader).toEqual({ alg: 'EdDSA', typ: 'at+jwt', kid: expect.any(String) })
    const now = Math.floor(Date.now() / 1000)
    expect(payload).toEqual({
      iss: h.base,
      sub: 'oidc:alice',
      aud: API,
      client_id: h.origin,
      iat: expect.any(Number),
      exp: (payload.iat as number) + 300,
      jti: expect.stringMatching(/^[\w-]{22}$/),
      sid: expect.stringMatching(/^[\w-]{43}$/),
      auth_time: expect.any(Number),
    } satisfies Record<keyof JWTPayload | string, unknown>)
    expect(Math.abs((payload.iat as number) - now)).toBeLessThanOrEqual(2)
    expect(payload.auth_time as number).toBeLessThanOrEqual(payload.iat as number)
    // A new token each time, for the same session.
    const again = (await verifier(h)(await tokenOf(h, browser))).payload
    expect(again.jti).not.toBe(payload.jti)
    expect(again.sid).toBe(payload.sid)
  })

  it('publishes public keys only, cacheable for 300 seconds, the signing key among them', async () => {
    const { harness: h, browser } = await signedIn()
    const res = await fetch(`${h.base}/jwks`)
    expect(res.status).toBe(200)
    expect(res.headers.get('cache-control')).toBe('public, max-age=300')
    const { keys } = (await res.json()) as { keys: Array<Record<string, string>> }
    expect(keys).toHaveLength(1)
    expect(keys[0]).toEqual({
      kty: 'OKP',
      crv: 'Ed25519',
      x: expect.any(String),
      kid: expect.any(String),
      alg: 'EdDSA',
      use: 'sig',
    })
    expect(decodeProtectedHeader(await tokenOf(h, browser)).kid).toBe(keys[0]!.kid)
  })

  it('issues for the `resource` asked, one of `audiences`, and refuses any other with invalid_target', async () => {
    const { harness: h, browser } = await signedIn()
    const { payload } = await verifier(h, OTHER_API)(await tokenOf(h, browser, { resource: OTHER_API }))
    expect(payload.aud).toBe(OTHER_API)
    for (const resource of ['https://evil.example', `${API}/`, API.toUpperCase(), '']) {
      const res = await askToken(h, browser, { resource })
      expect([res.status, await res.json()]).toEqual([400, { error: 'invalid_target' }])
    }
  })

  it('refuses without a session, without the CSRF token, and from another site', async () => {
    const { harness: h, browser } = await signedIn()
    const stranger = new Browser(h)
    const none = await askToken(h, stranger)
    expect([none.status, await none.json()]).toEqual([401, { error: 'SessionRequired' }])
    const noCsrf = await browser.jar.fetch(`${h.base}/token`, {
      method: 'POST',
      headers: { origin: h.origin },
      body: new URLSearchParams({ resource: API }),
    })
    expect([noCsrf.status, await noCsrf.json()]).toEqual([403, { error: 'MissingCSRF' }])
    const crossSite = await browser.jar.fetch(`${h.base}/token`, {
      method: 'POST',
      headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      body: new URLSearchParams({ csrfToken: await browser.csrfToken() }),
    })
    expect(crossSite.status).toBe(403)
    expect(await crossSite.text()).not.toContain('access_token')
  })

  it('answers a page on a `cors.origins` origin, with credentials, and names it as `client_id`', async () => {
    const SPA = 'http://localhost:5999'
    const { harness: h, browser } = await signedIn({ cors: { origins: [SPA] } })
    const preflight = await fetch(`${h.base}/token`, {
      method: 'OPTIONS',
      headers: { origin: SPA, 'access-control-request-method': 'POST' },
    })
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get('access-control-allow-origin')).toBe(SPA)
    const res = await browser.jar.fetch(`${h.base}/token`, {
      method: 'POST',
      headers: { origin: SPA, 'sec-fetch-site': 'same-site' },
      body: new URLSearchParams({ csrfToken: await browser.csrfToken() }),
    })
    expect(res.status).toBe(200)
    expect(res.headers.get('access-control-allow-origin')).toBe(SPA)
    expect(res.headers.get('access-control-allow-credentials')).toBe('true')
    const { access_token } = (await res.json()) as { access_token: string }
    expect((await verifier(h)(access_token)).payload.client_id).toBe(SPA)
    const other = await browser.jar.fetch(`${h.base}/token`, {
      method: 'POST',
      headers: { origin: 'http://localhost:6000', 'sec-fetch-site': 'same-site' },
      body: new URLSearchParams({ csrfToken: await browser.csrfToken() }),
    })
    // A page of the same site that no option lists: the router lets its POST through (a form of a
    // sibling host could post too), but its script cannot read the answer, and the token names the
    // service as its client, not that page.
    expect(other.headers.get('access-control-allow-origin')).toBeNull()
    const { access_token: unlisted } = (await other.json()) as { access_token: string }
    expect((await verifier(h)(unlisted)).payload.client_id).toBe(h.origin)
  })

  it("adds the app's claims, never in place of the service's, and issues nothing when its callback fails", async () => {
    let failure: (() => Record<string, unknown>) | null = null
    const { harness: h, browser } = await signedIn({
      accessTokens: {
        audiences: [API],
        maxAge: 60,
        claims: ({ record, resource }) => {
          if (failure) return failure()
          return { plan: 'pro', resource, user: record.userId, sub: 'admin', iss: 'https://evil.example' }
        },
      },
    })
    const { payload } = await verifier(h)(await tokenOf(h, browser))
    expect(payload).toMatchObject({ plan: 'pro', resource: API, user: 'oidc:alice', sub: 'oidc:alice', iss: h.base })
    expect(payload.exp! - payload.iat!).toBe(60)
    expect(h.logs.filter((entry) => entry.message.includes('`sub`'))).toHaveLength(1)
    const failures: Array<() => Record<string, unknown>> = [
      () => {
        throw new Error('the plans table is down')
      },
      () => {
        throw Object.create(null)
      },
      () => ({
        get plan(): string {
          throw new Error('a getter that throws')
        },
      }),
      () => ({ seats: BigInt(5) }),
      () => ({ notes: 'x'.repeat(5000) }),
      () => ['not', 'an', 'object'] as unknown as Record<string, unknown>,
    ]
    for (const next of failures) {
      failure = next
      const res = await askToken(h, browser)
      expect([res.status, await res.json()]).toEqual([500, { error: 'server_error' }])
    }
    expect(h.logs.filter((entry) => entry.event === 'access_token.claims' && entry.level === 'error')).toHaveLength(
      failures.length,
    )
  })

  it("signs with ES256 when asked, and with the app's own key, published under its kid", async () => {
    const es = await signedIn({ accessTokens: { audiences: [API], alg: 'ES256' } })
    const esToken = await tokenOf(es.harness, es.browser)
    expect(decodeProtectedHeader(esToken).alg).toBe('ES256')
    await expect(verifier(es.harness)(esToken)).resolves.toBeTruthy()
    await es.harness.stop()
    harness = undefined
    const { privateKey } = generateKeyPairSync('ed25519')
    const own = await signedIn({ accessTokens: { audiences: [API], keys: [{ key: privateKey, kid: 'app-key-1' }] } })
    const ownToken = await tokenOf(own.harness, own.browser)
    expect(decodeProtectedHeader(ownToken).kid).toBe('app-key-1')
    await expect(verifier(own.harness)(ownToken)).resolves.toBeTruthy()
  })

  it('rotates with `secret`: both keys published, a token of the old key verifies until it expires', async () => {
    const OLD = 'the-old-secret-that-is-long-enough-0123456789'
    const NEW = 'the-new-secret-that-is-long-enough-9876543210'
    const before = await signedIn({ secret: OLD })
    const oldToken = await tokenOf(before.harness, before.browser)
    const oldKid = decodeProtectedHeader(oldToken).kid
    await before.harness.stop()
    harness = undefined
    // The same service (same URL, same IdP users) after the rotation: it cannot be the same port, so
    // the old token is checked against the new service's keys by its issuer below.
    const after = await signedIn({ secret: [NEW, OLD] })
    const { keys } = (await (await fetch(`${after.harness.base}/jwks`)).json()) as { keys: Array<{ kid: string }> }
    expect(keys.map(({ kid }) => kid)).toEqual([expect.any(String), oldKid])
    expect(decodeProtectedHeader(await tokenOf(after.harness, after.browser)).kid).toBe(keys[0]!.kid)
    const jwks = createRemoteJWKSet(new URL(`${after.harness.base}/jwks`))
    await expect(jwtVerify(oldToken, jwks, { audience: API, typ: 'at+jwt' })).resolves.toBeTruthy()
  })

  it('names a database session by its listSessions handle (`sid`), and marks its end in Redis for the APIs', async () => {
    const { harness: h, browser } = await signedIn({
      redis: db.client,
      redisKeyPrefix: db.prefix,
      session: { strategy: 'database' },
    })
    const { payload } = await verifier(h)(await tokenOf(h, browser))
    const [listed] = await h.router.listSessions('oidc:alice')
    expect(payload.sid).toBe(listed!.handle)
    expect(await db.client.exists(`${db.prefix}ended:${String(payload.sid)}`)).toBe(0)
    expect((await browser.signOut()).status).toBe(302)
    const ttl = await db.client.ttl(`${db.prefix}ended:${String(payload.sid)}`)
    // maxAge, and an API's clockTolerance twice (its clock may lag by as much): 300 + 125.
    expect(ttl).toBeGreaterThan(300 + 120)
    expect(ttl).toBeLessThanOrEqual(425)
  })

  it('marks the end of a cookie session by its sid, for as long as a copy of its cookie could ask for tokens', async () => {
    const { harness: h, browser } = await signedIn({ redis: db.client, redisKeyPrefix: db.prefix })
    const { payload } = await verifier(h)(await tokenOf(h, browser))
    expect((await browser.signOut()).status).toBe(302)
    const ttl = await db.client.ttl(`${db.prefix}ended:${String(payload.sid)}`)
    expect(ttl).toBeGreaterThan(29 * 24 * 3600)
  })
})
