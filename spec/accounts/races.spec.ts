import path from 'node:path'
import { Browser } from '../support/browser'
import { startApp, type App } from '../support/app-process'
import { idpLogin } from '../support/idp-login'
import { startIdp, type Idp } from '../support/idp'
import { freePort } from '../support/process'
import { postgresForFile } from '../support/postgres'
import { sharedRedis, type SharedRedis } from '../support/redis'

// Two real app processes on one account store, reached through one IdP: the races of the issue,
// decided by the store (SET NX, a unique constraint), not by timing. Twenty sign-ins of one new
// identity at once make one user; two links of one identity to two users at once link it once.
jest.setTimeout(120_000)

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const USERS = ['alice', 'bob', 'carol', 'dave', 'erin'].map((name) => ({
  accountId: name,
  name: `${name[0]!.toUpperCase()}${name.slice(1)} Example`,
  email: `${name}@example.com`,
}))

type Site = { origin: string; base: string }

let redis: SharedRedis
let idp: Idp
const postgres = postgresForFile('accounts_races')
const ports: number[] = []

beforeAll(async () => {
  redis = await sharedRedis()
  ports.push(await freePort(), await freePort(), await freePort(), await freePort())
  const urls = ports.map((port) => `http://localhost:${port}`)
  idp = await startIdp({
    users: USERS,
    clients: [
      {
        client_id: 'app',
        client_secret: 'app-secret',
        redirect_uris: urls.flatMap((url) => [`${url}/api/auth/callback/oidc`, `${url}/api/auth/callback/plain`]),
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
  })
  const env = {
    ACCOUNTS: 'redis',
    REDIS_URL: redis.url,
    REDIS_PREFIX: redis.prefix('accounts-races'),
    ISSUER: idp.issuer,
  }
  const file = path.join(__dirname, 'fixtures', 'accounts-app.ts')
  apps = await Promise.all(ports.map((port) => startApp(file, { ...env, PORT: String(port) })))
  sites = apps.map((app) => ({ origin: app.url, base: `${app.url}/api/auth` }))
})

afterAll(async () => {
  await Promise.all(apps.map((app) => app.stop()))
  await idp?.stop()
  await redis?.close()
})

async function whoami(browser: Browser, site: Site): Promise<string | null> {
  return ((await (await browser.jar.fetch(`${site.origin}/whoami`)).json()) as { userId: string | null }).userId
}

let apps: App[] = []
let sites: Site[] = []

async function accountsOf(userId: string): Promise<Array<{ provider: string }>> {
  return (await (await fetch(`${sites[0]!.origin}/admin/accounts/${encodeURIComponent(userId)}`)).json()) as Array<{
    provider: string
  }>
}

/** Up to the IdP's answer (not yet followed): the callback URL, on the site the flow began at. */
async function atProvider(browser: Browser, provider: string, login: string, query = ''): Promise<URL> {
  // A new IdP session for each login: the IdP answers a switch of user within one with a logout form.
  browser.jar.clear(idp.issuer)
  const started = await browser.startSignIn(provider, { query })
  if (started.status !== 302) throw new Error(`sign-in answered ${started.status}`)
  return idpLogin(new URL(started.headers.get('location')!), { jar: browser.jar, login })
}

describe.each(['redis', 'postgres'] as const)('accounts on two instances and one store: %s', (kind) => {
  beforeAll(async () => {
    const env =
      kind === 'redis'
        ? { REDIS_URL: redis.url, REDIS_PREFIX: redis.prefix('accounts-races') }
        : {
            DATABASE_URL: process.env.POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/test',
            PG_SCHEMA: postgres.schema,
          }
    const file = path.join(__dirname, 'fixtures', 'accounts-app.ts')
    const mine = kind === 'redis' ? ports.slice(0, 2) : ports.slice(2)
    apps = await Promise.all(
      mine.map((port) => startApp(file, { ...env, ACCOUNTS: kind, ISSUER: idp.issuer, PORT: String(port) })),
    )
    sites = apps.map((app) => ({ origin: app.url, base: `${app.url}/api/auth` }))
  })
  afterAll(async () => {
    await Promise.all(apps.map((app) => app.stop()))
  })

  it('makes one user of twenty sign-ins of one new identity at once', async () => {
    const browsers = Array.from({ length: 20 }, (_, i) => new Browser(sites[i % 2]!))
    const callbacks = await Promise.all(browsers.map((browser) => atProvider(browser, 'oidc', 'alice')))
    const answers = await Promise.all(callbacks.map((callback, i) => browsers[i]!.returnTo(callback)))
    expect(answers.map((answer) => answer.headers.get('location'))).toEqual(
      answers.map((_, i) => `${sites[i % 2]!.origin}/welcome`),
    )
    const users = new Set(await Promise.all(browsers.map((browser, i) => whoami(browser, sites[i % 2]!))))
    expect(users.size).toBe(1)
    const [userId] = [...users] as [string]
    expect(userId).not.toBe('oidc:alice')
    expect((await accountsOf(userId)).map((account) => account.provider)).toEqual(['oidc'])
  })

  it('links one identity once when two users link it at once, on two instances', async () => {
    const [first, second] = [new Browser(sites[0]!), new Browser(sites[1]!)]
    await first.returnTo(await atProvider(first, 'oidc', 'bob'))
    await second.returnTo(await atProvider(second, 'oidc', 'carol'))
    const [bob, carol] = [await whoami(first, sites[0]!), await whoami(second, sites[1]!)] as [string, string]
    expect(bob).not.toBe(carol)
    // Both ask to link the same `plain` identity (dave at the IdP).
    const callbacks = await Promise.all([
      atProvider(first, 'plain', 'dave', '?link=true'),
      atProvider(second, 'plain', 'dave', '?link=true'),
    ])
    const answers = await Promise.all([first.returnTo(callbacks[0]), second.returnTo(callbacks[1])])
    const locations = answers.map((answer) => answer.headers.get('location') ?? '')
    expect(locations.filter((location) => location.endsWith('/welcome'))).toHaveLength(1)
    expect(locations.filter((location) => location.endsWith('/error?error=AccountAlreadyLinked'))).toHaveLength(1)
    const linked = [...(await accountsOf(bob)), ...(await accountsOf(carol))].filter(
      (account) => account.provider === 'plain',
    )
    expect(linked).toHaveLength(1)
    // Whoever lost is still signed in as themselves.
    expect([await whoami(first, sites[0]!), await whoami(second, sites[1]!)]).toEqual([bob, carol])
  })

  it('erases a user: deleteUser ends the sessions on both instances, and the identity signs up afresh', async () => {
    const browsers = [new Browser(sites[0]!), new Browser(sites[1]!)]
    for (const browser of browsers) await browser.returnTo(await atProvider(browser, 'oidc', 'erin'))
    const ids = await Promise.all(browsers.map((browser, i) => whoami(browser, sites[i]!)))
    expect(ids[0]).toBe(ids[1])
    const userId = ids[0]!
    const deleted = await fetch(`${sites[0]!.origin}/admin/delete/${encodeURIComponent(userId)}`, { method: 'POST' })
    expect(await deleted.json()).toEqual({ existed: true })
    // Cookie sessions of a deleted user are refused on the other instance too, once Redis tells it.
    const deadline = Date.now() + 5000
    while (Date.now() < deadline && (await whoami(browsers[1]!, sites[1]!)) !== null) await sleep(50)
    expect(await Promise.all(browsers.map((browser, i) => whoami(browser, sites[i]!)))).toEqual([null, null])
    expect(await accountsOf(userId)).toEqual([])
    const again = new Browser(sites[1]!)
    await again.returnTo(await atProvider(again, 'oidc', 'erin'))
    const fresh = await whoami(again, sites[1]!)
    expect(fresh).not.toBeNull()
    expect(fresh).not.toBe(userId)
  })
})
