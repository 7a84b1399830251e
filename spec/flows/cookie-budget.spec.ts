import { oidc } from '../../lib'
import { COOKIE_BUDGET } from '../../lib/infra/http/cookie-budget'
import { serve, type Served } from '../support/app'
import { Browser } from '../support/browser'
import { startHostileIssuer, type HostileIssuer } from '../support/hostile-issuer'

/**
 * Every cookie the package sets counts toward one Cookie budget (COOKIE_BUDGET, 14 KB: Node answers
 * 431 past 16 KB of headers). With cookie sessions, `tokens: true` and `logout: 'provider'`, a
 * session near its three chunks, an ID token whose logout cookie would take 3.5 KB, and other tabs'
 * sign-ins under way, the Cookie header the browser sends stays within the budget; GET /session and
 * sign-out (to the provider) still work. Sign-out works, and leaves the browser within the budget,
 * when the browser already carries more than that.
 */

let issuer: HostileIssuer
let app: Served

beforeAll(async () => {
  issuer = await startHostileIssuer({
    discovery: { end_session_endpoint: 'http://127.0.0.1:9/end-session' },
    // An ID token whose sealed form (about 3.5 KB) is just under what the logout cookie took before.
    idTokenClaims: { groups: 'g'.repeat(1550) },
    refreshTokens: true,
  })
  app = await serve({
    providers: [
      oidc({
        id: 'big',
        issuer: issuer.issuer,
        clientId: issuer.clientId,
        clientSecret: issuer.clientSecret,
        logout: 'provider',
        tokens: true,
      }),
    ],
    // The session near its three chunks: the ID token in the token set, and data of the app's.
    callbacks: { signIn: () => ({ data: { note: 'n'.repeat(3700) } }) },
  })
})

afterAll(async () => {
  await app.close()
  await issuer.stop()
})

const cookieHeader = (browser: Browser) => browser.jar.header(`${app.base}/session`) ?? ''

/** Signed in, with another tab's sign-in under way (its flow cookie kept). */
async function signedInWithFlows(): Promise<Browser> {
  const browser = new Browser(app)
  const authorization = await browser.authorizationUrl('big', { callbackUrl: `/welcome?${'q'.repeat(600)}` })
  await browser.authorizationUrl('big', { callbackUrl: `/welcome?${'r'.repeat(600)}` })
  const res = await browser.returnTo(await browser.login(authorization))
  expect(res.status).toBe(302)
  expect(res.headers.get('location')).toContain('/welcome')
  return browser
}

it('keeps the Cookie header within the budget; /session and sign-out to the provider work', async () => {
  const browser = await signedInWithFlows()
  expect(cookieHeader(browser).length).toBeLessThanOrEqual(COOKIE_BUDGET)
  expect((await browser.session()).user).toMatchObject({ email: 'alice@example.com' })
  expect(cookieHeader(browser).length).toBeLessThanOrEqual(COOKIE_BUDGET)

  const res = await browser.signOut()
  expect(res.status).toBe(302)
  expect(new URL(res.headers.get('location')!).pathname).toBe('/end-session')
  expect(await browser.session()).toEqual({})
  expect(cookieHeader(browser).length).toBeLessThanOrEqual(COOKIE_BUDGET)
  // The hint that did not fit is said, with the way to keep it.
  const entry = app.logs.filter((logged) => logged.event === 'signout.provider').at(-1)
  expect(entry).toMatchObject({ idTokenHint: false })
  expect(entry?.message).toContain('redis')
})

it('signs out a browser that already carries more than the budget, and leaves it within', async () => {
  const browser = await signedInWithFlows()
  // What a browser may still hold from before: a logout cookie of 3.6 KB beside all of the above.
  const logout = browser.jar.all(app.base).find((cookie) => cookie.name.endsWith('-logout'))
  const name = logout?.name ?? 'auth.session-token-logout'
  browser.jar.set(app.base, `${name}=${'x'.repeat(3600)}; Path=/; HttpOnly; SameSite=Lax`)
  expect(cookieHeader(browser).length).toBeGreaterThan(COOKIE_BUDGET)

  const res = await browser.signOut()
  expect(res.status).toBe(302)
  expect(await browser.session()).toEqual({})
  expect(cookieHeader(browser).length).toBeLessThanOrEqual(COOKIE_BUDGET)
})
