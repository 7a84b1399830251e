/**
 * Attack on issue 30's defect 6 (spec/security/attack-30-token-race.spec.ts): "no refresh after
 * the headers are sent". The check is made once, when getAccessToken starts; a response sent while
 * the refresh is in flight (an app's own timeout answering 504, a handler that answers before
 * awaiting) still lets the refresh spend the rotated refresh token, and the successor cannot reach
 * the browser. Real oidc-provider IdP with rotation and reuse detection (spec/support/idp).
 *
 * FINDING A30-3 (Low): cookie sessions without Redis. Measured before any fix: the racing call
 * spends one refresh grant and rejects with Node's raw `Error [ERR_HTTP_HEADERS_SENT]` (session.save
 * writes Set-Cookie on the sent response; not the documented refusal); the successor lives only in
 * the in-memory grace (30 s), after which the browser's spent refresh token is sent again, the IdP's
 * reuse detection refuses it, `GET /token` answers 500 and the session says
 * `RefreshAccessTokenError`: the user's tokens are lost. Fix idea: re-check `headersSent` before
 * sending the grant (and before save), or keep the successor until the old set's session expires.
 * Fixed so: the racing call rejects with the documented `Configuration` refusal, and the successor
 * is parked in this process (as long as the session can live) where the next request's old set
 * finds it and writes it to the cookie: one grant spent in all, the tokens still usable.
 */
import { randomBytes } from 'node:crypto'
import { AuthError, oidc, type AuthRouter } from '../../lib'
import { freeSite, serve, type Served } from '../support/app'
import { Browser } from '../support/browser'
import { grantCounts, startIdp, type Idp } from '../support/idp'

jest.setTimeout(90_000)

let idp: Idp
let served: Served
const outcome: { race?: string } = {}

beforeAll(async () => {
  const site = await freeSite()
  const clientSecret = randomBytes(16).toString('hex')
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
    tokenEndpointDelayMs: 500,
  })
  const holder: { router?: AuthRouter } = {}
  served = await serve(
    {
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
    },
    {
      site,
      setup: (app) => {
        // The app's own deadline: it answers after 100 ms whatever the token does, then uses the token.
        app.get('/race', (req, res) => {
          const token = holder.router!.getAccessToken(req, 'idp', { refresh: 'force' })
          setTimeout(() => res.status(504).json({ late: true }), 100)
          token.then(
            () => (outcome.race = 'token'),
            (error: unknown) => (outcome.race = error instanceof AuthError ? error.code : String(error)),
          )
        })
        app.get('/token', (req, res) => {
          holder.router!.getAccessToken(req, 'idp').then(
            (token) => res.status(token ? 200 : 404).json(token ?? {}),
            (error: unknown) =>
              res.status(500).json({ error: error instanceof AuthError ? error.code : String(error) }),
          )
        })
      },
    },
  )
  holder.router = served.router
})

afterAll(async () => {
  await served?.close()
  await idp?.stop()
})

describe('getAccessToken with a response sent while the refresh runs (defect 6)', () => {
  it('keeps the successor of a refresh whose response went meanwhile, and the tokens stay usable', async () => {
    const browser = new Browser(served)
    const signedIn = await browser.signIn('idp')
    expect(signedIn.status).toBe(302)
    const before = await grantCounts(idp)
    const res = await browser.jar.fetch(`${served.origin}/race`)
    expect(res.status).toBe(504)
    for (let i = 0; i < 40 && outcome.race === undefined; i++) await new Promise((r) => setTimeout(r, 50))
    // Today: the refresh went out (a grant spent) and saving its successor threw ERR_HTTP_HEADERS_SENT.
    const raced = { race: outcome.race, grants: (await grantCounts(idp)).refresh - before.refresh }
    // Past the in-memory grace (GRACE_MS, 30 s) the browser still holds the spent refresh token.
    await new Promise((r) => setTimeout(r, 31_000))
    const next = await browser.jar.fetch(`${served.origin}/token`)
    const body = (await next.json()) as Record<string, unknown>
    const session = await browser.session()
    const after = await browser.jar.fetch(`${served.origin}/token`)
    // The documented refusal; the one grant's successor reached the browser with the next request.
    expect({
      raced,
      status: next.status,
      error: session.error,
      same: ((await after.json()) as Record<string, unknown>).accessToken === body.accessToken,
      grants: (await grantCounts(idp)).refresh - before.refresh,
    }).toEqual({ raced: { race: 'Configuration', grants: 1 }, status: 200, error: undefined, same: true, grants: 1 })
  })
})
