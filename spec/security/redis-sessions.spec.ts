import type Redis from 'ioredis'
import { confirm, confirmForm, openLink, stopAll } from '../support/email-harness'
import { ownRedis, untilReady, type OwnRedis } from '../support/redis'
import { addressIn, confirmLink, linkFor, SIGNED_IN, startEmailApp, type EmailApp } from '../support/email-setup'
import { captureOutput, expectNoLeaks, type RecordingBrowser, type Secrets } from '../support/leaks'

/**
 * No secret reaches a log with database sessions over a real Redis of this spec's own (sessions,
 * e-mail links, rate limits and revocations all live there): sessions read, updated, ended one at a
 * time and everywhere (by the user, and by the app's revokeSessions), and through a Redis outage
 * (stopped, then started again). The database session cookie (the token whose hash keys the record)
 * and the address are what a log must not hold; neither must ioredis's own complaints, which go to
 * the console, while Redis is down.
 */

const logged = captureOutput()
let redis: OwnRedis
let client: Redis

beforeAll(async () => {
  redis = await ownRedis()
  client = redis.client()
  await untilReady(client)
})
afterEach(stopAll)
afterAll(() => redis?.close())

function start(): Promise<EmailApp> {
  return startEmailApp(
    logged,
    { rateLimits: { addressPerMinute: 10 } },
    { redis: client, session: { strategy: 'database', revocationDelay: 0 }, storeTimeout: 300 },
  )
}

async function signIn(app: EmailApp, secrets: Secrets, address: string): Promise<RecordingBrowser> {
  const browser = app.browser(secrets)
  const res = await confirmLink(app, browser, secrets, await linkFor(app, browser, secrets, address))
  expect(res.headers.get('location')).toBe(`${app.service.origin}/welcome`)
  expect(await browser.session()).toMatchObject({ user: { email: address } })
  return browser
}

const events = () =>
  logged
    .ofThisTest()
    .entries.filter((entry) => entry.event !== 'config.warning')
    .map((entry) => `${entry.level} ${entry.event}`)

it('read, update, sign-out, sign-out everywhere and revokeSessions log none of the secrets', async () => {
  const app = await start()
  const secrets = app.secrets()
  const address = addressIn(secrets)
  const [first, second] = [await signIn(app, secrets, address), await signIn(app, secrets, address)]
  const update = await first.jar.fetch(`${app.service.base}/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ csrfToken: await first.csrfToken(), data: { theme: 'dark' } }),
  })
  expect(update.status).toBe(200)
  expect((await first.signOut({ everywhere: 'true' })).status).toBe(302)
  expect(await second.session()).toEqual({})

  const third = await signIn(app, secrets, address)
  await app.service.router.revokeSessions(`email:${address}`)
  expect(await third.session()).toEqual({})

  const fourth = await signIn(app, secrets, address)
  expect((await fourth.signOut()).status).toBe(302)
  expect(events().filter((event) => event.endsWith('signout.everywhere'))).toHaveLength(2)
  expect(events()).toContain('info signout')
  secrets.expectCollected(...SIGNED_IN)
  expectNoLeaks(logged.ofThisTest(), secrets)
})

it('a Redis outage: every request answered 503, the outage logged once, the recovery once, no secret', async () => {
  const app = await start()
  const secrets = app.secrets()
  const address = addressIn(secrets)
  const browser = await signIn(app, secrets, address)
  // A link asked for and opened before the outage, its button pressed during it.
  const waiting = await signIn(app, secrets, address)
  const form = confirmForm(await openLink(app.service, waiting, await linkFor(app, waiting, secrets, address)))

  await redis.stop()
  const { base } = app.service
  const csrfToken = await browser.csrfToken()
  const answers = [
    await browser.jar.fetch(`${base}/session`),
    await browser.jar.fetch(`${base}/session`, { method: 'POST', body: new URLSearchParams({ csrfToken, data: 'x' }) }),
    await browser.jar.fetch(`${base}/signin/email`, {
      method: 'POST',
      body: new URLSearchParams({ csrfToken, email: address, callbackUrl: '/welcome' }),
    }),
    await confirm(app.service, waiting, form.fields),
    await browser.signOut({ everywhere: 'true' }),
    await browser.signOut(),
  ].map((res) => res.status)
  expect(answers).toEqual([503, 503, 503, 503, 503, 503])

  await redis.start()
  await untilReady(client)
  await signIn(app, secrets, address)
  const outage = events().filter((event) => event.includes('store.'))
  expect(outage).toEqual(['error store.unavailable', 'info store.recovered'])
  secrets.expectCollected(...SIGNED_IN)
  expectNoLeaks(logged.ofThisTest(), secrets)
})
