import type { ReadableSpan } from '@opentelemetry/sdk-trace-base'
import { memoryAccounts } from '../../lib'
import type { Served } from '../support/app'
import { Browser } from '../support/browser'
import { mailedLink, newAddress, startEmailService, stopAll, useLink } from '../support/email-harness'
import type { Idp } from '../support/idp'
import { OIDC_APP_SECRET, startOidcApp } from '../support/oidc-app'
import { registerTelemetry, type RegisteredTelemetry } from '../support/telemetry'
import { startTokenApp } from '../support/token-harness'
import { sharedRedis } from '../support/redis'

// The calls that leave the process, as an operator's traces show them: each a child span of the
// request's (`auth.provider.<endpoint>`, `auth.mail.send`), measured by provider, endpoint and
// outcome; a provider that is down gives error spans and `outcome: error`. No attribute of any span
// or metric point holds a secret the spec knows.
jest.setTimeout(60_000)

let otel: RegisteredTelemetry
beforeAll(() => {
  otel = registerTelemetry()
})
afterEach(stopAll)
afterAll(() => otel?.stop())

const CLIENT_SECRET = OIDC_APP_SECRET

/** The span's parent's id, as SDK 2.x exposes it. */
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId
const idOf = (span: ReadableSpan | undefined) => span?.spanContext().spanId

/** Every attribute of every span and metric point, as one text, for the scans. */
async function everything(): Promise<string> {
  const metrics = await otel.metrics()
  const points = metrics.flatMap((metric) => metric.dataPoints.map((point) => point.attributes))
  return JSON.stringify([...otel.spans().map((span) => [span.name, span.attributes]), ...points])
}

async function oidcService(): Promise<{ idp: Idp; served: Served }> {
  const { idp, served } = await startOidcApp()
  return { idp, served }
}

it('an OIDC sign-in: discovery, keys and token calls under the request’s spans, measured; no secret anywhere', async () => {
  otel.reset()
  const { idp, served } = await oidcService()
  try {
    const browser = new Browser(served)
    const started = await browser.startSignIn('idp')
    const authorization = new URL(started.headers.get('location')!)
    const back = await browser.login(authorization)
    const res = await browser.returnTo(back)
    expect(res.status).toBe(302)
    const [signin] = otel.named('auth.signin')
    const [discovery] = otel.named('auth.provider.discovery')
    expect(discovery?.attributes).toMatchObject({ 'auth.provider': 'idp', 'auth.endpoint': 'discovery' })
    expect(parentOf(discovery!)).toBe(idOf(signin))
    const [callback] = otel.named('auth.callback')
    const [token] = otel.named('auth.provider.token')
    expect(token?.attributes).toMatchObject({ 'auth.provider': 'idp', 'auth.endpoint': 'token' })
    expect(parentOf(token!)).toBe(idOf(callback))
    expect(otel.named('auth.provider.jwks')).toHaveLength(1)
    const durations = await otel.points('auth.provider.duration')
    for (const endpoint of ['discovery', 'token', 'jwks'])
      expect(durations).toContainEqual({
        attributes: { 'auth.provider': 'idp', 'auth.endpoint': endpoint, 'auth.outcome': 'success' },
        value: 1,
      })
    const text = await everything()
    const secrets = [CLIENT_SECRET, back.searchParams.get('code')!, authorization.searchParams.get('state')!]
    const cookies = browser.jar.all(new URL(served.origin)).map(({ value }) => value)
    for (const secret of [...secrets, ...cookies, 'alice']) if (secret.length >= 5) expect(text).not.toContain(secret)
  } finally {
    await served.close()
    await idp.stop()
  }
})

it('a provider that is down: the discovery span records the error, the duration says error, the sign-in fails', async () => {
  otel.reset()
  const { idp, served } = await oidcService()
  try {
    await idp.stop()
    const res = await new Browser(served).startSignIn('idp')
    expect(res.status).toBeGreaterThanOrEqual(300)
    const [discovery] = otel.named('auth.provider.discovery')
    expect(discovery?.status.code).toBe(2) // ERROR
    expect(discovery?.attributes['error.type']).toEqual(expect.any(String))
    expect(await otel.points('auth.provider.duration')).toContainEqual({
      attributes: { 'auth.provider': 'idp', 'auth.endpoint': 'discovery', 'auth.outcome': 'error' },
      value: 1,
    })
    expect(otel.named('auth.signin')[0]?.attributes['auth.outcome']).not.toBe('success')
  } finally {
    await served.close()
  }
})

it('an e-mail sign-in: the mail span under the sign-in’s, auth.mail.sent, and never the address', async () => {
  otel.reset()
  const service = await startEmailService()
  const address = newAddress()
  const link = await mailedLink(service, new Browser(service), address)
  const [signin] = otel.named('auth.signin')
  const [mail] = otel.named('auth.mail.send')
  expect(mail?.attributes).toEqual({ 'auth.mail.kind': 'signIn' })
  expect(parentOf(mail!)).toBe(idOf(signin))
  expect(await otel.points('auth.mail.sent')).toContainEqual({ attributes: { 'auth.outcome': 'sent' }, value: 1 })
  const text = await everything()
  for (const secret of [address, link.searchParams.get('token')!]) expect(text).not.toContain(secret)
})

it('a refresh of provider tokens: its span, the refresh counted, no token in any attribute', async () => {
  otel.reset()
  const t = await startTokenApp()
  try {
    const browser = await t.signedIn()
    const { body } = await t.token(browser, '?force=1')
    expect(body.accessToken).toEqual(expect.any(String))
    expect(otel.named('auth.provider.refresh')[0]?.attributes).toMatchObject({ 'auth.endpoint': 'refresh' })
    expect(await otel.points('auth.token.refreshes')).toContainEqual({
      attributes: { 'auth.provider': 'idp', 'auth.outcome': 'refreshed' },
      value: 1,
    })
    expect(await everything()).not.toContain(body.accessToken!)
  } finally {
    await t.stop()
  }
})

it('Redis commands: child spans auth.redis of the request, named by the system alone', async () => {
  const redis = await sharedRedis()
  const client = redis.client()
  const prefix = redis.prefix('telemetry-calls')
  otel.reset()
  try {
    const service = await startEmailService({}, { redis: client, redisKeyPrefix: prefix })
    const address = newAddress()
    await mailedLink(service, new Browser(service), address)
    const [signin] = otel.named('auth.signin')
    const commands = otel.named('auth.redis').filter((span) => parentOf(span) === idOf(signin))
    expect(commands.length).toBeGreaterThan(0)
    for (const span of commands) expect(span.attributes).toEqual({ 'db.system.name': 'redis' })
    expect(await everything()).not.toContain(address)
  } finally {
    await stopAll()
    await redis.deleteKeys(prefix)
    await redis.close()
  }
})

it('an account store’s calls: child spans auth.accounts.store of the sign-in that makes the user', async () => {
  otel.reset()
  const service = await startEmailService({}, { accounts: { store: memoryAccounts() } })
  const browser = new Browser(service)
  const link = await mailedLink(service, browser, newAddress())
  expect((await useLink(service, browser, link)).status).toBe(302)
  const callback = otel.named('auth.callback').at(-1)
  const calls = otel.named('auth.accounts.store').filter((span) => parentOf(span) === idOf(callback))
  expect(calls.length).toBeGreaterThan(0)
  for (const span of calls) expect(span.attributes).toEqual({})
})
