import { randomBytes } from 'node:crypto'
import type { Express } from 'express'
import { AuthError, oidc, type AuthRouter, type AuthOptions } from '../../lib'
import { freeSite, serve, type Served } from '../support/app'
import { Browser } from '../support/browser'
import { grantCounts, revokeGrants, startIdp, type Idp } from '../support/idp'

// getAccessToken with cookie sessions (no Redis: one process): the provider's tokens travel sealed
// in the session cookie. Concurrent calls share one refresh; a request that still brings the cookie
// from before the refresh gets its successor (with rotation, spending the old refresh token again
// would revoke the grant); a grant revoked at the provider ends in RefreshAccessTokenError and the
// client session's `error`, and nothing of a token ever reaches the client session or a log.
jest.setTimeout(60_000)

const clientSecret = randomBytes(16).toString('hex')
let idp: Idp
let served: Served
let events: Array<{ name: string; message: unknown }>

/** GET /token's handler: getAccessToken's answer as JSON (the error's code when it rejects). */
function tokenRoute(router: () => AuthRouter) {
  return (app: Express) =>
    app.get('/token', (req, res) => {
      const options = req.query.force === '1' ? { refresh: 'force' as const } : {}
      router()
        .getAccessToken(req, 'idp', options)
        .then(
          (token) => res.status(token ? 200 : 404).json(token ?? {}),
          (error: unknown) => res.status(500).json({ error: error instanceof AuthError ? error.code : String(error) }),
        )
    })
}

beforeAll(async () => {
  const site = await freeSite()
  idp = await startIdp({
    clients: [
      {
        client_id: 'app',
        client_secret: clientSecret,
        redirect_uris: [`${site.base}/callback/idp`],
        token_endpoint_auth_method: 'client_secret_post',
        grant_types: ['authorization_code', 'refresh_token'],
      },
    ],
    refreshTokens: true,
    rotateRefreshToken: true,
    accessTokenTtl: 30,
    refreshedAccessTokenTtl: 3600,
    countGrants: true,
    tokenEndpointDelayMs: 300,
  })
  events = []
  const options: AuthOptions = {
    providers: [
      oidc({
        id: 'idp',
        issuer: idp.issuer,
        clientId: 'app',
        clientSecret,
        scope: 'openid email offline_access',
        tokens: true,
      }),
    ],
    events: {
      tokenRefreshed: (message) => void events.push({ name: 'tokenRefreshed', message }),
      tokenRefreshFailed: (message) => void events.push({ name: 'tokenRefreshFailed', message }),
    },
  }
  let router: AuthRouter | undefined
  served = await serve(options, { site, setup: tokenRoute(() => router!) })
  router = served.router
})

afterAll(async () => {
  await served?.close()
  await idp?.stop()
})

const signedIn = async () => {
  const browser = new Browser(served)
  expect((await browser.signIn('idp')).status).toBe(302)
  return browser
}
const token = async (browser: Browser, query = '') => {
  const res = await browser.jar.fetch(`${served.origin}/token${query}`)
  return {
    status: res.status,
    body: (await res.json()) as { accessToken?: string; expiresAt?: number; error?: string },
  }
}

it('refreshes once for concurrent calls; a cookie from before the refresh gets the successor; nothing of a token leaks', async () => {
  const browser = await signedIn()
  const before = await grantCounts(idp)
  const oldCookie = browser.cookie('auth.session-token')!.value
  const answers = await Promise.all(Array.from({ length: 20 }, () => token(browser)))
  expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(200))
  const fresh = answers[0]!.body
  expect(new Set(answers.map((answer) => answer.body.accessToken))).toEqual(new Set([fresh.accessToken]))
  expect(fresh).toEqual({
    accessToken: expect.any(String),
    expiresAt: expect.any(Number),
    tokenType: 'Bearer',
    scope: expect.stringContaining('openid'),
  })
  expect(fresh.expiresAt! - Date.now() / 1000).toBeGreaterThan(3000)
  expect(await grantCounts(idp)).toEqual({ refresh: before.refresh + 1, revoked: 0 })

  // Another tab still holding the session cookie of before the refresh.
  const tab = new Browser(served)
  tab.jar.set(served.origin, `auth.session-token=${oldCookie}; Path=/; HttpOnly; SameSite=Lax`)
  expect((await token(tab)).body.accessToken).toBe(fresh.accessToken)
  expect(await grantCounts(idp)).toEqual({ refresh: before.refresh + 1, revoked: 0 })

  const session = JSON.stringify(await browser.session())
  expect(session).not.toContain(fresh.accessToken)
  expect(JSON.stringify(served.logs)).not.toContain(fresh.accessToken)
  expect(JSON.stringify(events)).not.toContain(fresh.accessToken)
  expect(events.at(-1)).toEqual({
    name: 'tokenRefreshed',
    message: { userId: 'idp:alice', provider: 'idp', expiresAt: fresh.expiresAt },
  })
})

it('a grant revoked at the provider: RefreshAccessTokenError, the client session says so, the session stays', async () => {
  const browser = await signedIn()
  await revokeGrants(idp)
  expect(await token(browser)).toEqual({ status: 500, body: { error: 'RefreshAccessTokenError' } })
  expect(await browser.session()).toMatchObject({
    user: { email: 'alice@example.com' },
    error: 'RefreshAccessTokenError',
  })
  // Asked again: refused at once, without asking the provider.
  const counts = await grantCounts(idp)
  expect(await token(browser)).toEqual({ status: 500, body: { error: 'RefreshAccessTokenError' } })
  expect(await grantCounts(idp)).toEqual(counts)
  expect(events.at(-1)).toMatchObject({ name: 'tokenRefreshFailed', message: { userId: 'idp:alice', provider: 'idp' } })
  expect(served.logs.find((entry) => entry.event === 'tokens.refresh_failed')?.message).toMatch(/invalid_grant/)
})

it('nobody signed in, or another provider: null', async () => {
  expect(await token(new Browser(served))).toEqual({ status: 404, body: {} })
  expect(await served.router.getAccessToken({ headers: {} } as never, 'idp')).toBeNull()
})
