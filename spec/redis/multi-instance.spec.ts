import path from 'node:path'
import { Browser } from '../support/browser'
import { startApp, type App } from '../support/app-process'
import { sharedRedis, type SharedRedis } from '../support/redis'
import { signInLink, startSmtp, type SmtpServer } from '../support/smtp'
import { newAddress, verifyRequestUrl } from '../support/email-harness'
import type { Served } from '../support/app'
import { forms } from '../support/forms'

// Two real app processes (fixtures/instance-app.ts) on one Redis and one mail server, reached by one
// browser: cookies do not tell ports apart, as with two instances behind one load balancer.
jest.setTimeout(60_000)

let redis: SharedRedis
let prefix: string
let smtp: SmtpServer
let apps: App[]
let sites: Array<{ origin: string; base: string }>

beforeAll(async () => {
  redis = await sharedRedis()
  prefix = redis.prefix('multi-instance')
  smtp = await startSmtp()
  const env = { REDIS_URL: redis.url, REDIS_PREFIX: prefix, SMTP_URL: smtp.url }
  const file = path.join(__dirname, 'fixtures', 'instance-app.ts')
  apps = await Promise.all([startApp(file, env), startApp(file, env)])
  sites = apps.map((app) => ({ origin: app.url, base: `${app.url}/api/auth` }))
})

afterAll(async () => {
  await Promise.all((apps ?? []).map((app) => app.stop()))
  await smtp?.close()
  await redis?.deleteKeys(prefix)
  await redis?.close()
})

/** POST /signin/email at `site`. */
async function askLink(browser: Browser, site: { base: string }, address: string): Promise<Response> {
  return browser.jar.fetch(`${site.base}/signin/email`, {
    method: 'POST',
    body: new URLSearchParams({ email: address, csrfToken: await browser.csrfToken(), callbackUrl: '/welcome' }),
  })
}

/** Opens a link at `site` (whichever instance sent it) and presses the confirm page's button there. */
async function spend(browser: Browser, site: { origin: string; base: string }, link: URL): Promise<Response> {
  const opened = new URL(link.pathname + link.search, site.origin)
  const page = await (await browser.jar.fetch(opened, {}, { crossSite: true })).text()
  const form = forms(page).find((candidate) => candidate.method === 'post')
  if (!form) throw new Error(`no confirm form at ${opened.pathname}:\n${page}`)
  const fields = form.fields
  return browser.jar.fetch(`${site.base}/callback/email`, { method: 'POST', body: new URLSearchParams(fields) })
}

/** Signs in: the link asked at `asked`, spent at `spentAt`. */
async function signIn(asked: number, spentAt: number, address = newAddress()) {
  const browser = new Browser(sites[asked]!)
  expect((await askLink(browser, sites[asked]!, address)).status).toBe(302)
  const link = signInLink(await smtp.nextMessage(), sites[asked]!.base)
  const res = await spend(new Browser(sites[spentAt]!, browser.jar), sites[spentAt]!, link)
  expect(res.status).toBe(302)
  return { browser, address }
}

const at = (index: number, browser: Browser) => new Browser(sites[index]!, browser.jar)

it('spends on one instance a link asked on the other, and the session is seen by both', async () => {
  const { browser, address } = await signIn(0, 1)
  expect(await at(0, browser).session()).toMatchObject({ user: { email: address } })
  expect(await at(1, browser).session()).toMatchObject({ user: { email: address } })
})

it('signed out through one instance, the session is gone on the other', async () => {
  const { browser } = await signIn(0, 0)
  expect((await at(1, browser).signOut()).status).toBe(302)
  expect(await at(0, browser).session()).toEqual({})
})

it("signed out everywhere through one instance, all of the user's sessions are gone on the other", async () => {
  const address = newAddress()
  const first = await signIn(0, 0, address)
  const second = await signIn(1, 1, address)
  const other = await signIn(1, 1)
  expect(await at(0, second.browser).session()).toHaveProperty('user')
  expect((await at(1, first.browser).signOut({ everywhere: 'true' })).status).toBe(302)
  expect(await at(0, first.browser).session()).toEqual({})
  expect(await at(0, second.browser).session()).toEqual({})
  expect(await at(0, other.browser).session()).toHaveProperty('user')
})

it('counts the rate limits across both instances', async () => {
  // The address may have two links a minute, on both instances together.
  const address = newAddress()
  await signIn(0, 0, address)
  await signIn(0, 1, address)
  const browser = new Browser(sites[1]!)
  const res = await askLink(browser, sites[1]!, address)
  // The answer a sent mail gets, and no mail: the other instance knew of the first link.
  expect(res.headers.get('location')).toBe(verifyRequestUrl(sites[1] as Served))
  expect(await smtp.messagesAfter(300)).toHaveLength(smtp.messages().length)
  expect(apps[1]!.output()).toContain('"event":"email.rate_limited"')
})
