import Redis from 'ioredis'
import { makeApp } from '../support/app'
import { sharedRedis, untilReady, type SharedRedis } from '../support/redis'
import { askSession, plantSession, redisProxy, sleep, warm, type RedisProxy } from '../support/tracking'

// Only the tracking connection (the second one through the proxy) is slow from Redis to us; the
// app's own connection is fast. Invalidations arrive as late as the link, so the cache is never
// trusted over it (lib/infra/store/redis/liveness.ts): a request that starts 50 ms or more after a session
// was deleted in Redis is refused. (It was answered from memory for as long as the link's delay.)
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

it.each([150, 400, 1000])(
  'refuses a deleted session within 50 ms when the tracking connection lags %i ms',
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
    await sleep(1500)
    const planted = await plantSession(direct, prefix)
    await warm(app, planted.cookie)
    await direct.del(planted.key)
    const deletedAt = performance.now()
    /** When each request that still got the session started, in ms after the delete was answered. */
    const served: number[] = []
    while (performance.now() - deletedAt < lag + 500) {
      const started = performance.now() - deletedAt
      if ('user' in (await askSession(app, planted.cookie))) served.push(Math.round(started))
      await sleep(5)
    }
    main.disconnect()
    expect(served.filter((started) => started >= 50)).toEqual([])
  },
)
