import { randomBytes } from 'node:crypto'
import path from 'node:path'
import { startApp, type App } from '../support/app-process'
import { Browser } from '../support/browser'
import { grantCounts, startIdp, type Idp } from '../support/idp'
import { freePort } from '../support/process'
import { sharedRedis, type SharedRedis } from '../support/redis'

// getAccessToken over several app processes (fixtures/tokens-app.ts) on one Redis, against the real
// IdP with refresh tokens: however many requests on however many instances find the access token
// expired, the provider serves exactly one refresh grant; a lock holder that dies before writing
// is taken over once its lock runs out.
jest.setTimeout(90_000)

const FIXTURE = path.join(__dirname, 'fixtures', 'tokens-app.ts')
const clientSecret = randomBytes(16).toString('hex')

let redis: SharedRedis
const stops: Array<() => Promise<void>> = []

beforeAll(async () => {
  redis = await sharedRedis()
})

afterAll(async () => {
  for (const stop of stops.reverse()) await stop().catch(() => undefined)
  await redis?.close()
})

/** The IdP (with refresh tokens) and `count` app processes on one prefix; `env[i]` added to app i's. */
async function start(
  count: number,
  idpOptions: { rotateRefreshToken: boolean },
  env: Array<Record<string, string>> = [],
) {
  const ports = await Promise.all(Array.from({ length: count }, () => freePort()))
  const idp: Idp = await startIdp({
    clients: [
      {
        client_id: 'app',
        client_secret: clientSecret,
        redirect_uris: ports.map((port) => `http://localhost:${port}/api/auth/callback/idp`),
        token_endpoint_auth_method: 'client_secret_post',
        grant_types: ['authorization_code', 'refresh_token'],
      },
    ],
    refreshTokens: true,
    rotateRefreshToken: idpOptions.rotateRefreshToken,
    // Due for refresh at once (getAccessToken's default minValidity is 60 s); refreshed ones are not.
    accessTokenTtl: 30,
    refreshedAccessTokenTtl: 3600,
    countGrants: true,
    // Every caller arrives while the first refresh is at the provider.
    tokenEndpointDelayMs: 1500,
  })
  stops.push(() => idp.stop())
  const prefix = redis.prefix('provider-tokens')
  stops.push(async () => void (await redis.deleteKeys(prefix)))
  const apps: App[] = await Promise.all(
    ports.map((port, i) =>
      startApp(FIXTURE, {
        PORT: String(port),
        REDIS_URL: redis.url,
        REDIS_PREFIX: prefix,
        ISSUER: idp.issuer,
        CLIENT_SECRET: clientSecret,
        // Room for the IdP's 1.5 s delay on a loaded machine (the sign-in's own token request has it too).
        PROVIDER_TIMEOUT: '4000',
        ...env[i],
      }),
    ),
  )
  for (const app of apps) stops.push(() => app.stop())
  const browser = new Browser({ origin: apps[0]!.url, base: `${apps[0]!.url}/api/auth` })
  // Signed in: sent on to the app, not to the error page (a sign-in that failed leaves no tokens).
  const signedIn = await browser.signIn('idp')
  expect([signedIn.status, signedIn.headers.get('location')]).toEqual([302, expect.not.stringContaining('/error')])
  return { idp, apps, browser }
}

/** GET /token at `app` with the browser's cookies: the status and body, or the network error. */
async function token(browser: Browser, app: App) {
  try {
    const res = await browser.jar.fetch(`${app.url}/token`)
    return { status: res.status, body: (await res.json()) as { accessToken?: string; error?: string } }
  } catch (error) {
    return { status: 0, body: { error: String(error) } }
  }
}

it('4 instances × 50 concurrent calls on an expired token: one refresh grant, no failure, one new token, grant kept', async () => {
  const { idp, apps, browser } = await start(4, { rotateRefreshToken: true })
  const answers = await Promise.all(apps.flatMap((app) => Array.from({ length: 50 }, () => token(browser, app))))
  expect(answers.filter((answer) => answer.status !== 200)).toEqual([])
  const tokens = new Set(answers.map((answer) => answer.body.accessToken))
  expect(tokens.size).toBe(1)
  expect(await grantCounts(idp)).toEqual({ refresh: 1, revoked: 0 })
  // And the new token stands: no further refresh for later calls.
  expect((await token(browser, apps[3]!)).body.accessToken).toBe([...tokens][0])
  expect(await grantCounts(idp)).toEqual({ refresh: 1, revoked: 0 })
  for (const app of apps) expect(app.output()).not.toContain([...tokens][0])
})

it('a lock holder killed between the provider answer and the write is taken over once its lock runs out', async () => {
  // Without rotation: the refresh token the dead holder spent stays valid for the next caller.
  const { idp, apps, browser } = await start(2, { rotateRefreshToken: false }, [{}, { CRASH_BEFORE_WRITE: '1' }])
  const [survivor, doomed] = apps as [App, App]
  const lost = token(browser, doomed)
  // The doomed instance holds the lock: these wait for it, then one of them takes over.
  await new Promise((resolve) => setTimeout(resolve, 300))
  const waiting = await Promise.all(Array.from({ length: 10 }, () => token(browser, survivor)))
  expect((await lost).status).toBe(0)
  expect(waiting.filter((answer) => answer.status !== 200)).toEqual([])
  expect(new Set(waiting.map((answer) => answer.body.accessToken)).size).toBe(1)
  // The dead holder's refresh and the survivor's: no more.
  expect(await grantCounts(idp)).toEqual({ refresh: 2, revoked: 0 })
})
