import { generateKeyPair, SignJWT, base64url } from 'jose'
import { oidc } from '../../lib'
import { serve, type Served } from '../support/app'
import { Browser } from '../support/browser'
import { startHostileIssuer, type HostileIssuer } from '../support/hostile-issuer'
import { sharedRedis, type SharedRedis } from '../support/redis'

/**
 * POST /backchannel-logout/:provider refuses every logout token that §2.6 of OpenID Connect
 * Back-Channel Logout says to refuse, each with 400, an OAuth error body and `no-store`, and ends
 * nothing: the signed-in browser keeps its session. Tokens are signed by an issuer of the spec's
 * own (spec/support/hostile-issuer.ts), so that every claim can be wrong in turn; the last test
 * shows that the same token, right, does end the session.
 */

const EVENT = 'http://schemas.openid.net/event/backchannel-logout'
const SID = 'idp-session-1'

let issuer: HostileIssuer
let other: HostileIssuer
let app: Served

beforeAll(async () => {
  issuer = await startHostileIssuer({ idTokenClaims: { sid: SID } })
  other = await startHostileIssuer()
  app = await serve({
    providers: [
      oidc({ id: 'hostile', issuer: issuer.issuer, clientId: issuer.clientId, clientSecret: issuer.clientSecret }),
      oidc({ id: 'other', issuer: other.issuer, clientId: other.clientId, clientSecret: other.clientSecret }),
    ],
  })
})

afterAll(async () => {
  await app.close()
  await issuer.stop()
  await other.stop()
})

const now = () => Math.floor(Date.now() / 1000)
let counter = 0

/** A logout token that every check passes, with `changes` applied (undefined removes a claim). */
function claims(changes: Record<string, unknown> = {}): Record<string, unknown> {
  const result: Record<string, unknown> = {
    iss: issuer.issuer,
    aud: issuer.clientId,
    iat: now(),
    jti: `jti-${Date.now()}-${counter++}`,
    events: { [EVENT]: {} },
    sid: SID,
    sub: 'alice',
    ...changes,
  }
  for (const [name, value] of Object.entries(changes)) if (value === undefined) delete result[name]
  return result
}

const validToken = (changes: Record<string, unknown> = {}) => issuer.sign(claims(changes), { typ: 'logout+jwt' })

function post(token: string, provider = 'hostile'): Promise<Response> {
  return fetch(`${app.base}/backchannel-logout/${provider}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ logout_token: token }),
  })
}

async function signedInBrowser(): Promise<Browser> {
  const browser = new Browser(app)
  await browser.signIn('hostile')
  expect((await browser.session()).user).toMatchObject({ email: 'alice@example.com' })
  return browser
}

/** The answer is the OAuth 400, and the browser is still signed in. */
async function expectRefused(res: Response, browser: Browser): Promise<void> {
  expect(res.status).toBe(400)
  expect(res.headers.get('cache-control')).toContain('no-store')
  expect(await res.json()).toMatchObject({ error: 'invalid_request' })
  expect((await browser.session()).user).toMatchObject({ email: 'alice@example.com' })
}

describe('a logout token is refused with 400, and nothing ends, when', () => {
  let browser: Browser
  beforeAll(async () => {
    browser = await signedInBrowser()
  })

  it('its signature is by another key (with the issuer kid)', async () => {
    const { privateKey } = await generateKeyPair('ES256')
    const forged = await new SignJWT(claims())
      .setProtectedHeader({ alg: 'ES256', kid: 'hostile-es256' })
      .sign(privateKey)
    await expectRefused(await post(forged), browser)
  })

  it('it is unsigned (alg none)', async () => {
    const encode = (value: unknown) => base64url.encode(JSON.stringify(value))
    await expectRefused(await post(`${encode({ alg: 'none' })}.${encode(claims())}.`), browser)
  })

  it('it is an HMAC over the client secret (alg HS256)', async () => {
    const hmac = await new SignJWT(claims())
      .setProtectedHeader({ alg: 'HS256' })
      .sign(new TextEncoder().encode(issuer.clientSecret))
    await expectRefused(await post(hmac), browser)
  })

  it.each([
    ['another issuer', { iss: 'https://evil.example' }],
    ['another audience', { aud: 'someone-else' }],
    ['a nonce', { nonce: 'n-1' }],
    ['no events', { events: undefined }],
    ['events without the back-channel logout event', { events: { 'https://example.com/other': {} } }],
    ['neither sid nor sub', { sid: undefined, sub: undefined }],
    ['an iat an hour ago', { iat: now() - 3600 }],
    ['an iat in an hour', { iat: now() + 3600 }],
    ['no iat', { iat: undefined }],
    ['an exp in the past', { exp: now() - 600 }],
    ['no jti', { jti: undefined }],
    ['a sid that is not a string', { sid: 42 }],
  ])('it has %s', async (_name, changes) => {
    await expectRefused(await post(await validToken(changes)), browser)
  })

  it('its typ is that of another kind of token', async () => {
    await expectRefused(await post(await issuer.sign(claims(), { typ: 'at+jwt' })), browser)
  })

  it('it is the ID token of the sign-in', async () => {
    await expectRefused(await post(issuer.idTokens.at(-1)!), browser)
  })

  it('its jti was used before', async () => {
    // A valid token naming another provider session: 200, nobody ended; the same token again is a replay.
    const token = await validToken({ sid: 'another-idp-session', sub: 'bob' })
    expect((await post(token)).status).toBe(200)
    await expectRefused(await post(token), browser)
  })

  it("it is the provider's, posted to another provider's route", async () => {
    await expectRefused(await post(await validToken(), 'other'), browser)
  })

  it('it names a provider that does not exist', async () => {
    await expectRefused(await post(await validToken(), 'nobody'), browser)
  })

  it('the body is huge', async () => {
    const res = await fetch(`${app.base}/backchannel-logout/hostile`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `logout_token=${await validToken()}&pad=${'x'.repeat(1024 * 1024)}`,
    })
    await expectRefused(res, browser)
  })

  it('the body is JSON', async () => {
    const res = await fetch(`${app.base}/backchannel-logout/hostile`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ logout_token: await validToken() }),
    })
    await expectRefused(res, browser)
  })

  it('it comes as a GET', async () => {
    const res = await fetch(`${app.base}/backchannel-logout/hostile?logout_token=${await validToken()}`)
    await expectRefused(res, browser)
  })

  it('there is no body', async () => {
    const res = await fetch(`${app.base}/backchannel-logout/hostile`, { method: 'POST' })
    await expectRefused(res, browser)
  })
})

it('the same token, right, ends the session, with 200, and a new sign-in works', async () => {
  const browser = await signedInBrowser()
  // Posted as a provider's server does: no cookie, no CSRF token, another site's Origin.
  const res = await fetch(`${app.base}/backchannel-logout/hostile`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: issuer.issuer },
    body: new URLSearchParams({ logout_token: await validToken() }),
  })
  expect(res.status).toBe(200)
  expect(res.headers.get('cache-control')).toContain('no-store')
  expect(await browser.session()).toEqual({})
  const entry = app.logs.filter((log) => log.event === 'backchannel_logout').at(-1)
  expect(entry).toMatchObject({ provider: 'hostile', users: 1 })
  expect(JSON.stringify(app.logs)).not.toContain(issuer.idTokens.at(-1)!)

  // A new sign-in is a new session at the provider, with a new sid: the ended one signs in no more.
  issuer.behave({ idTokenClaims: { sid: 'idp-session-2' } })
  const again = await signedInBrowser()
  expect((await again.session()).user).toMatchObject({ email: 'alice@example.com' })
  issuer.reset()
})

describe('with Redis, on two instances', () => {
  let redis: SharedRedis
  let prefix: string
  let one: Served
  let two: Served

  beforeAll(async () => {
    redis = await sharedRedis()
    prefix = redis.prefix('logout-replay')
    const options = () => ({
      providers: [
        oidc({ id: 'hostile', issuer: issuer.issuer, clientId: issuer.clientId, clientSecret: issuer.clientSecret }),
      ],
      redis: redis.client(),
      redisKeyPrefix: prefix,
    })
    one = await serve(options())
    two = await serve(options())
  })

  afterAll(async () => {
    await one.close()
    await two.close()
    await redis.deleteKeys(prefix)
    await redis.close()
  })

  it('refuses a token replayed to the other instance, and nothing more ends', async () => {
    const browser = new Browser(two)
    await browser.signIn('hostile')
    const token = await validToken({ sid: 'somebody-else' })
    const at = (served: Served) =>
      fetch(`${served.base}/backchannel-logout/hostile`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ logout_token: token }),
      })
    expect((await at(one)).status).toBe(200)
    await expectRefused(await at(two), browser)
  })
})
