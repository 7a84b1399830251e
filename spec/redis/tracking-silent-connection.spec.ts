import Redis from 'ioredis'
import request from 'supertest'
import { makeApp } from '../support/app'
import { sharedRedis, type SharedRedis } from '../support/redis'
import { askSession, plantSession, redisProxy, sleep, type RedisProxy } from '../support/tracking'

// The tracking connection (lib/store/redis-tracking.ts) falls silent without closing (a half-open
// TCP flow: a NAT or firewall dropping an idle connection), while the app's own connection is fine.
// The cache stops trusting it within 2.5 s, and every session is read from Redis over the app's
// connection: answered, never a 503 for lack of a cache.
jest.setTimeout(30_000)

let redis: SharedRedis
let proxy: RedisProxy
let stallTracking = false
let viaProxy: Redis | undefined

beforeAll(async () => {
  redis = await sharedRedis()
  const target = new URL(redis.url)
  proxy = await redisProxy(
    { host: target.hostname, port: Number(target.port) },
    { silent: (link) => link.tracking && stallTracking },
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
  stallTracking = true
  const second = await plantSession(direct, prefix)
  const statuses: number[] = []
  for (let i = 0; i < 5; i++) {
    statuses.push((await request(app).get('/api/auth/session').set('Cookie', second.cookie)).status)
    await sleep(1000)
  }
  // The app's own connection answers at once all along.
  expect(await viaProxy.ping()).toBe('PONG')
  stallTracking = false
  expect(statuses).toEqual([200, 200, 200, 200, 200])
})
