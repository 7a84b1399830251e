import { ProxyTracer } from '@opentelemetry/api'
import type { Served } from '../support/app'
import { Browser } from '../support/browser'
import { startOidcApp, type OidcApp } from '../support/oidc-app'
import { ownRedisForFile, until } from '../support/redis'
import { registerTelemetry, type RegisteredTelemetry } from '../support/telemetry'

// The gauges read at collection (a database session in a Redis of the spec's own, stopped at the
// end), and no span started while no tracer provider is registered, the SDK registered later being
// seen by the auth() made before it.
jest.setTimeout(90_000)

const own = ownRedisForFile()
let otel: RegisteredTelemetry | undefined
let app: OidcApp
let served: Served

beforeAll(async () => {
  const client = own().client()
  await client.ping()
  app = await startOidcApp({ redis: client, session: { strategy: 'database' } })
  served = app.served
})

afterAll(async () => {
  await otel?.stop()
  await app?.stop()
})

it('with no tracer provider registered no span is started; one registered later is seen by the same auth()', async () => {
  const started = jest.spyOn(ProxyTracer.prototype, 'startSpan')
  const browser = new Browser(served)
  expect((await browser.signIn('idp')).status).toBe(302)
  expect(await browser.session()).toHaveProperty('user')
  expect(started).not.toHaveBeenCalled()
  otel = registerTelemetry()
  expect(await browser.session()).toHaveProperty('user')
  expect(otel.named('auth.session')).toHaveLength(1)
  started.mockRestore()
})

/** The gauge's values by `auth.cache` (or '' without it). */
async function gauge(name: string): Promise<Record<string, number>> {
  const points = await otel!.points(name)
  return Object.fromEntries(
    points.map((point) => [(point.attributes['auth.cache'] as string | undefined) ?? '', point.value]),
  )
}

it('sizes, hit ratios since the last collection and the tracking connection, read at collection', async () => {
  const browser = new Browser(served)
  expect((await browser.signIn('idp')).status).toBe(302)
  // Read until answered from memory: the record held by tracking, then the reply remembered.
  await until('a session answered from memory', async () => {
    await browser.session()
    return (
      ((await otel!.points('auth.session.checks')).find((p) => p.attributes['auth.result'] === 'hit')?.value ?? 0) > 0
    )
  })
  for (let i = 0; i < 5; i++) await browser.session()
  const sizes = await gauge('auth.cache.size')
  expect(sizes['session.replies']).toBeGreaterThan(0)
  expect(sizes['redis.tracked']).toBeGreaterThan(0)
  // The previous collection read the ratios: these are of the requests since.
  for (let i = 0; i < 3; i++) await browser.session()
  const ratios = await gauge('auth.cache.hit_ratio')
  expect(ratios['session.replies']).toBeGreaterThan(0)
  expect(ratios['session.replies']).toBeLessThanOrEqual(1)
  expect(ratios['redis.tracked']).toBeGreaterThanOrEqual(0)
  expect(ratios['redis.tracked']).toBeLessThanOrEqual(1)
  expect(await gauge('auth.redis.tracking.up')).toEqual({ '': 1 })
  await own().stop('SIGKILL')
  await until('tracking down', async () => (await gauge('auth.redis.tracking.up'))[''] === 0, 10_000)
})
