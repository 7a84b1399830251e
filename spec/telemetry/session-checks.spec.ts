import { serve, freeSite, type Served } from '../support/app'
import { Browser } from '../support/browser'
import { startIdp, type Idp } from '../support/idp'
import { sharedRedisForFile } from '../support/redis'
import { oidc } from '../../lib'
import { registerTelemetry, type RegisteredTelemetry } from '../support/telemetry'

// auth.session.checks by result, with the SDK registered after auth(): GET /session without a
// cookie (none), a cookie session (hit: the cookie itself, then the reply cache), a database session
// in Redis (miss: read from Redis, then hits once tracking holds it).
jest.setTimeout(60_000)

const db = sharedRedisForFile('session-checks')
let otel: RegisteredTelemetry
let idp: Idp
const served: Record<'cookie' | 'database', Served> = {} as never

beforeAll(async () => {
  const sites = { cookie: await freeSite(), database: await freeSite() }
  idp = await startIdp({
    clients: Object.values(sites).map((site, i) => ({
      client_id: `app${i}`,
      client_secret: 'client-secret-123',
      redirect_uris: [`${site.base}/callback/idp`],
      token_endpoint_auth_method: 'client_secret_post',
    })),
  })
  const provider = (i: number) =>
    oidc({ id: 'idp', issuer: idp.issuer, clientId: `app${i}`, clientSecret: 'client-secret-123' })
  served.cookie = await serve({ providers: [provider(0)] }, { site: sites.cookie })
  served.database = await serve(
    {
      providers: [provider(1)],
      redis: db.client,
      redisKeyPrefix: db.prefix,
      session: { strategy: 'database' },
    },
    { site: sites.database },
  )
  otel = registerTelemetry()
})

afterAll(async () => {
  await otel?.stop()
  await served.cookie?.close()
  await served.database?.close()
  await idp?.stop()
})

/** The counter's values by result now. */
async function checks(): Promise<Record<string, number>> {
  const points = await otel.points('auth.session.checks')
  return Object.fromEntries(points.map((point) => [String(point.attributes['auth.result']), point.value]))
}

/** What `work` adds to each result. */
async function counted(work: () => Promise<unknown>): Promise<Record<string, number>> {
  const before = await checks()
  await work()
  const after = await checks()
  const delta: Record<string, number> = {}
  for (const [result, value] of Object.entries(after)) {
    const added = value - (before[result] ?? 0)
    if (added !== 0) delta[result] = added
  }
  return delta
}

it('GET /session without a cookie is a check with no session (none)', async () => {
  const browser = new Browser(served.cookie)
  expect(await counted(() => browser.session())).toEqual({ none: 1 })
})

it('a cookie session: opened from the cookie, then answered from the reply cache, both hits; no store read', async () => {
  const browser = new Browser(served.cookie)
  expect((await browser.signIn('idp')).status).toBe(302)
  const delta = await counted(async () => {
    expect(await browser.session()).toHaveProperty('user')
    expect(await browser.session()).toHaveProperty('user')
  })
  expect(delta).toEqual({ hit: 2 })
  expect(JSON.stringify(await otel.points('auth.session.checks'))).not.toMatch(/alice|@/)
})

it('a database session in Redis: read from Redis first (miss), then answered from memory (hit)', async () => {
  const browser = new Browser(served.database)
  expect((await browser.signIn('idp')).status).toBe(302)
  expect(await counted(() => browser.session())).toEqual({ miss: 1 })
  // Tracking holds the record once read (its connection confirmed): later reads are hits.
  const deadline = Date.now() + 10_000
  let delta: Record<string, number> = {}
  while (Date.now() < deadline) {
    delta = await counted(() => browser.session())
    if (delta.hit === 1) break
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  expect(delta).toEqual({ hit: 1 })
})
