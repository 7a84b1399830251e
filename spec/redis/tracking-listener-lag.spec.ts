import Redis from 'ioredis'
import { makeApp } from '../support/app'
import { sharedRedis, untilReady, type SharedRedis } from '../support/redis'
import { askSession, plantSession, redisProxy, sleep, warm, type RedisProxy } from '../support/tracking'

// Only the tracking connection (the second one through the proxy) is slow from Redis to us; the
// app's own connection is fast. A session deleted in Redis is answered at most 2.5 s longer.
jest.setTimeout(60_000)

let redis: SharedRedis
let proxy: RedisProxy
const lags: number[] = [] // by link index
const clients: Redis[] = []

beforeAll(async () => {
  redis = await sharedRedis()
  const target = new URL(redis.url)
  proxy = await redisProxy(
    { host: target.hostname, port: Number(target.port) },
    { lagMs: (link) => lags[link.index] ?? 0 },
  )
})
afterAll(async () => {
  for (const client of clients) client.disconnect()
  await proxy?.close()
  await redis?.close()
})

it.each([1000, 1400])(
  'answers a deleted session at most 2.5 s longer when the tracking connection lags %i ms',
  async (lag) => {
    const direct = redis.client()
    const prefix = redis.prefix('tracking-lag')
    const main = new Redis({ port: proxy.port, host: '127.0.0.1' })
    clients.push(main)
    await untilReady(main)
    const first = proxy.links.length
    const { app } = makeApp({
      redis: main,
      redisKeyPrefix: prefix,
      session: { strategy: 'database', revocationDelay: 600 },
    })
    await sleep(500)
    expect(proxy.links).toHaveLength(first + 1)
    lags[first] = lag // the listener: the connection opened by auth()
    await sleep(3000)
    const planted = await plantSession(direct, prefix)
    await warm(app, planted.cookie)
    await direct.del(planted.key)
    const deletedAt = Date.now()
    let lastSeen = 0
    while (Date.now() - deletedAt < 5000) {
      if ('user' in (await askSession(app, planted.cookie))) lastSeen = Date.now() - deletedAt
      await sleep(20)
    }
    main.disconnect()
    expect(lastSeen).toBeLessThan(2600)
  },
)
