import type Redis from 'ioredis'
import { grantCounts } from '../support/idp'
import { ownRedis, untilReady, type OwnRedis } from '../support/redis'
import { startTokenApp, type TokenApp } from '../support/token-harness'

// The provider's tokens in Redis: sealed (a dump shows none of them), gone with the session
// (sign-out, the app's revokeSessions), and never refreshed while Redis is away (no lock, no
// refresh: a refresh without it could burn the grant): ServiceUnavailable instead.
jest.setTimeout(60_000)

let server: OwnRedis
let client: Redis
let t: TokenApp

beforeAll(async () => {
  server = await ownRedis()
  client = server.client()
  await untilReady(client)
})

afterEach(async () => {
  await t?.stop()
  // Each spec counts the sets it leaves: none of a spec before it (our own server, our own prefix).
  const keys = await client.keys('auth:*')
  if (keys.length > 0) await client.del(...keys)
})

afterAll(async () => {
  await server?.close()
})

/** Every value under the service's prefix, as a dump would show it. */
async function dump(): Promise<string> {
  const keys = await client.keys('auth:*')
  const values = await Promise.all(
    keys.map(async (key) => {
      const type = await client.type(key)
      if (type === 'hash') return JSON.stringify(await client.hgetall(key))
      if (type === 'zset') return JSON.stringify(await client.zrange(key, 0, -1))
      return type === 'string' ? await client.get(key) : ''
    }),
  )
  return keys.join('\n') + values.join('\n')
}

const tokenKeys = async () => (await client.keys('auth:tok:*')).filter((key) => !key.endsWith(':lock'))

for (const strategy of ['database', 'cookie'] as const) {
  describe(`${strategy} sessions`, () => {
    it('keeps the tokens sealed in Redis, and drops them when the user signs out', async () => {
      t = await startTokenApp({ redis: client, session: { strategy } })
      const browser = await t.signedIn()
      const other = await t.signedIn()
      const { body } = await t.token(browser)
      expect(body.accessToken).toEqual(expect.any(String))
      expect(await tokenKeys()).toHaveLength(2)
      expect(await dump()).not.toContain(body.accessToken)
      expect((await browser.signOut()).status).toBe(302)
      expect(await tokenKeys()).toHaveLength(1)
      await t.served.router.revokeSessions('idp:alice')
      expect(await tokenKeys()).toHaveLength(0)
      expect((await t.token(other)).status).toBe(404)
    })

    it('drops the tokens of the session a new sign-in in the same browser replaces', async () => {
      t = await startTokenApp({ redis: client, session: { strategy } })
      const browser = await t.signedIn()
      expect(await tokenKeys()).toHaveLength(1)
      const again = await browser.signIn('idp')
      expect(again.headers.get('location')).toMatch(/\/welcome$/)
      expect(await tokenKeys()).toHaveLength(1)
      expect((await t.token(browser)).status).toBe(200)
    })
  })
}

it('database sessions: revokeSession from the device list drops that session’s tokens', async () => {
  t = await startTokenApp({ redis: client, session: { strategy: 'database' } })
  const browsers = [await t.signedIn(), await t.signedIn()]
  expect(await tokenKeys()).toHaveLength(2)
  const [first] = await t.served.router.listSessions('idp:alice')
  expect(await t.served.router.revokeSession('idp:alice', first!.handle)).toBe(true)
  expect(await tokenKeys()).toHaveLength(1)
  const statuses = await Promise.all(browsers.map(async (browser) => (await t.token(browser)).status))
  expect(statuses.sort()).toEqual([200, 404])
})

it('cookie sessions: signing out the other devices keeps this browser’s tokens, and ends the others’', async () => {
  t = await startTokenApp({ redis: client, session: { strategy: 'cookie' } })
  const browser = await t.signedIn()
  const other = await t.signedIn()
  const before = (await t.token(browser)).body.accessToken
  expect(before).toEqual(expect.any(String))
  expect((await browser.signOut({ others: 'true' })).status).toBe(302)
  expect(await t.token(browser)).toMatchObject({ status: 200, body: { accessToken: before } })
  expect((await t.token(other)).status).toBe(404)
  expect(await tokenKeys()).toHaveLength(1)
})

it('database sessions: a token still valid is answered from memory, Redis kept current by its client-side caching', async () => {
  t = await startTokenApp({ redis: client, session: { strategy: 'database' } })
  const browser = await t.signedIn()
  const first = (await t.token(browser)).body.accessToken
  // Read once from Redis after the refresh (this process's own write dropped what it held).
  expect((await t.token(browser)).body.accessToken).toBe(first)
  const reads = async () => Number(/cmdstat_hgetall:calls=(\d+)/.exec(await client.info('commandstats'))?.[1] ?? 0)
  const before = await reads()
  for (let i = 0; i < 5; i++) expect((await t.token(browser)).body.accessToken).toBe(first)
  expect(await reads()).toBe(before)
  // A change made elsewhere (another instance's refresh) is seen at once: here, the set deleted.
  for (const key of await tokenKeys()) await client.del(key)
  expect((await t.token(browser)).status).toBe(404)
})

it('Redis away: ServiceUnavailable, and no refresh at the provider', async () => {
  // Cookie sessions: the session opens from the cookie (the revocation time is held for 10 s), so
  // only the tokens need Redis.
  t = await startTokenApp({ redis: client, session: { strategy: 'cookie' }, storeTimeout: 500 })
  const browser = await t.signedIn()
  expect((await t.token(browser, '?minValidity=0')).status).toBe(200)
  const before = await grantCounts(t.idp)
  await server.stop()
  expect(await t.token(browser)).toEqual({ status: 503, body: { error: 'ServiceUnavailable' } })
  expect(await grantCounts(t.idp)).toEqual(before)
  await server.start()
  await untilReady(client)
})
