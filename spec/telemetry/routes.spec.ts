import type { Served } from '../support/app'
import { Browser } from '../support/browser'
import { startOidcApp, type OidcApp } from '../support/oidc-app'
import { registerTelemetry, type RegisteredTelemetry } from '../support/telemetry'

// A span per route and the sign-in metric, with the SDK registered after auth() (as an app that
// sets it up late would): an OIDC sign-in against the real IdP, GET /session, a refused sign-in.
jest.setTimeout(60_000)

let otel: RegisteredTelemetry
let app: OidcApp
let served: Served

beforeAll(async () => {
  app = await startOidcApp()
  served = app.served
  otel = registerTelemetry()
})

afterAll(async () => {
  await otel?.stop()
  await app?.stop()
})

it('an OIDC sign-in: auth.signin and auth.callback spans with their route, provider and outcome; one success counted', async () => {
  const browser = new Browser(served)
  const res = await browser.signIn('idp')
  expect(res.status).toBe(302)
  const [signin] = otel.named('auth.signin')
  expect(signin?.attributes).toMatchObject({ 'http.route': '/api/auth/signin/:provider', 'auth.provider': 'idp' })
  const [callback] = otel.named('auth.callback')
  expect(callback?.attributes).toMatchObject({
    'http.route': '/api/auth/callback/:provider',
    'auth.provider': 'idp',
    'auth.outcome': 'success',
    'http.response.status_code': 302,
  })
  // The user by a keyed hash only: stable, and not the id.
  const userRef = callback?.attributes['enduser.pseudo.id']
  expect(userRef).toMatch(/^[\w-]{22}$/)
  expect(JSON.stringify(otel.spans().map((span) => span.attributes))).not.toContain('alice')
  expect(await otel.points('auth.signin.attempts')).toEqual([
    { attributes: { 'auth.provider': 'idp', 'auth.outcome': 'success' }, value: 1 },
  ])
  expect(await browser.session()).toHaveProperty('user')
  expect(otel.named('auth.session').at(-1)?.attributes).toMatchObject({
    'http.route': '/api/auth/session',
    'auth.outcome': 'success',
  })
})

it('a provider id nobody configured is never a label: the span has no provider, the metric says unknown', async () => {
  otel.reset()
  const browser = new Browser(served)
  const res = await browser.jar.fetch(`${served.base}/callback/made-up-${Date.now()}?code=x&state=y`)
  expect(res.status).toBeGreaterThanOrEqual(300)
  const [callback] = otel.named('auth.callback')
  expect(callback?.attributes['auth.provider']).toBeUndefined()
  expect(callback?.attributes['auth.outcome']).not.toBe('success')
})

it('sign-out everywhere: counted in auth.revocations by kind; the signed-out browser’s next check is none', async () => {
  const browser = new Browser(served)
  expect((await browser.signIn('idp')).status).toBe(302)
  const before = await otel.points('auth.session.checks')
  const none = () => before.find((point) => point.attributes['auth.result'] === 'none')?.value ?? 0
  // The test IdP's user, as the service names it without accounts: `{provider}:{sub}`.
  await served.router.revokeSessions('idp:alice')
  expect(await otel.points('auth.revocations')).toContainEqual({
    attributes: { 'auth.revocation.kind': 'signout.everywhere' },
    value: 1,
  })
  expect(await browser.session()).not.toHaveProperty('user')
  const after = await otel.points('auth.session.checks')
  expect(after.find((point) => point.attributes['auth.result'] === 'none')?.value).toBe(none() + 1)
})
