import { oidc, type AuthOptions } from '../../lib'
import { freeSite, serve, type Served, type Site } from '../support/app'
import { auditLog, expected, type AuditLog } from '../support/audit'
import { Browser } from '../support/browser'
import { startIdp, type Idp } from '../support/idp'
import { registerTelemetry, type RegisteredTelemetry } from '../support/telemetry'

/**
 * Sign-ins refused without reaching the error page are Failures too: one the app's signIn callback
 * sends to a page of its own, and one a limit refuses with 429. The metric counts them alike.
 */
jest.setTimeout(60_000)

let idp: Idp
let otel: RegisteredTelemetry
let sites: Site[]
const started: Served[] = []

beforeAll(async () => {
  sites = [await freeSite(), await freeSite()]
  idp = await startIdp({
    clients: sites.map((site) => ({
      client_id: `app-${site.port}`,
      client_secret: 'client-secret-123',
      redirect_uris: [`${site.base}/callback/idp`],
      token_endpoint_auth_method: 'client_secret_post',
    })),
  })
  otel = registerTelemetry()
})
afterAll(async () => {
  await Promise.all(started.map((served) => served.close()))
  await otel?.stop()
  await idp?.stop()
})

async function service(log: AuditLog, options: AuthOptions): Promise<Served> {
  const site = sites[started.length]!
  const provider = oidc({
    id: 'idp',
    issuer: idp.issuer,
    clientId: `app-${site.port}`,
    clientSecret: 'client-secret-123',
  })
  const served = await serve({ providers: [provider], audit: log.sink, ...options }, { site })
  started.push(served)
  return served
}

const refused = { class_uid: 3002 as const, activity_id: 1, activity_name: 'Logon', status: 'Failure' as const }

it('the signIn callback sending the user to a page of its own: a Failure AccessDenied, counted as failure', async () => {
  const log = auditLog()
  const served = await service(log, { callbacks: { signIn: () => '/not-you' } })
  otel.reset()
  const res = await new Browser(served).signIn('idp')
  expect(res.headers.get('location')).toMatch(/\/not-you$/)
  expect(await log.of('signin')).toMatchObject([
    expected({ ...refused, userId: null, provider: 'idp', detail: 'AccessDenied', ip: '127.0.0.1' }),
  ])
  expect(await otel.points('auth.signin.attempts')).toContainEqual({
    attributes: { 'auth.provider': 'idp', 'auth.outcome': 'failure' },
    value: expect.any(Number),
  })
  expect(otel.named('auth.callback').at(-1)?.attributes).toMatchObject({
    'auth.outcome': 'failure',
    'error.type': 'AccessDenied',
  })
})

it('a sign-in refused by the request limit (429): a Failure TooManyRequests', async () => {
  const log = auditLog()
  const served = await service(log, { requestRateLimit: { limit: 1, windowSeconds: 60 } })
  const browser = new Browser(served)
  expect((await browser.startSignIn('idp')).status).toBe(302)
  expect((await browser.startSignIn('idp')).status).toBe(429)
  expect(await log.of('signin')).toMatchObject([
    expected({ ...refused, userId: null, provider: 'idp', detail: 'TooManyRequests', ip: '127.0.0.1' }),
  ])
  expect(await otel.points('auth.ratelimit.refusals')).toContainEqual({
    attributes: { 'auth.limit': 'requests' },
    value: expect.any(Number),
  })
})
