import Redis from 'ioredis'
import request from 'supertest'
import { makeApp } from '../support/app'
import { sharedRedis, type SharedRedis } from '../support/redis'
import { askSession, plantSession, redisProxy, sleep, type RedisProxy } from '../support/tracking'

// The tracking connection (lib/infra/store/redis/) falls silent without closing (a half-open TCP flow: a
// NAT or firewall dropping an idle connection), while the app's own connection is fine. The cache
// stops trusting it within 50 ms, and every session is read from Redis over the app's
// connection: answered, never a 503 for lack of a cache. Within 10 s more, the silent connection is
// replaced by a new one, and the cache is back on.
jest.setTimeout(60_000)

let redis: SharedRedis
let proxy: RedisProxy
/** The link that falls silent: the one tracking when the spec stalls it. */
let stalled = -1
let viaProxy: Redis | undefined

beforeAll(async () => {
  redis = await sharedRedis()
  const target = new URL(redis.url)
  proxy = await redisProxy(
    { host: target.hostname, port: Number(target.port) },
    { silent: (link) => link.index === stalled },
  )
})

afterAll(async () => {
  viaProxy?.disconnect()
  await proxy?.close()
  await redis?.close()
})

it("reads sessions from Redis over the app's connection while the tracking connection is silent", async () => {
  const direct = redis.client()
  const prefix = redis.prefix('attack-stall')
  viaProxy = new Redis({ port: proxy.port, host: '127.0.0.1' })
  const { app } = makeApp({
    redis: viaProxy,
    redisKeyPrefix: prefix,
    session: { strategy: 'database' },
    storeTimeout: 500,
  })
  await sleep(500)
  const first = await plantSession(direct, prefix)
  expect(await askSession(app, first.cookie)).toHaveProperty('user')
  stalled = proxy.links.find((link) => link.tracking)!.index
  const second = await plantSession(direct, prefix)
  const statuses: number[] = []
  for (let i = 0; i < 5; i++) {
    statuses.push((await request(app).get('/api/auth/session').set('Cookie', second.cookie)).status)
    await sleep(1000)
  }
  // The app's own connection answers at once all along.
  expect(await viaProxy.ping()).toBe('PONG')
  expect(statuses).toEqual([200, 200, 200, 200, 200])

  // 10 s without a PING answered: the silent connection is closed and a new one tracks.
  const tracking = () => proxy.links.filter((link) => link.tracking).length
  for (let i = 0; i < 100 && tracking() < 2; i++) await sleep(100)
  expect(tracking()).toBe(2)
  await sleep(300) // its CLIENT TRACKING answered
  const third = await plantSession(direct, prefix)
  const gets = async () => Number(/cmdstat_get:calls=(\d+)/.exec(String(await direct.info('commandstats')))?.[1] ?? 0)
  const before = await gets()
  for (let i = 0; i < 10; i++) expect(await askSession(app, third.cookie)).toHaveProperty('user')
  expect((await gets()) - before).toBeLessThanOrEqual(2) // the cache off: 10
})
