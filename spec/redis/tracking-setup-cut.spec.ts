import Redis from 'ioredis'
import { makeApp } from '../support/app'
import { ownRedis, untilReady, type OwnRedis } from '../support/redis'
import { plantSession, redisProxy, sleep, warm, type RedisProxy } from '../support/tracking'

// The tracking connection is cut while its CLIENT TRACKING is in flight (the first time only). The
// new connection must set itself up and turn the cache back on: nothing of the old connection's
// setup may be resent there (its REDIRECT would name a connection that is gone) or turn it off.
jest.setTimeout(60_000)

let own: OwnRedis
let proxy: RedisProxy
let cut = false
let main: Redis | undefined
beforeAll(async () => {
  own = await ownRedis()
  proxy = await redisProxy(
    { host: '127.0.0.1', port: own.port },
    {
      inspect(_chunk, link) {
        if (link.index === 1 && link.tracking && !cut) {
          cut = true
          link.cut()
        }
      },
    },
  )
})
afterAll(async () => {
  main?.disconnect()
  await proxy?.close()
  await own?.close()
})

it('after a cut during CLIENT TRACKING, the cache comes back on', async () => {
  const admin = own.client()
  main = new Redis({ port: proxy.port, host: '127.0.0.1', retryStrategy: () => 50 })
  await untilReady(main)
  const prefix = 'tracking-cut:'
  const app = makeApp({ redis: main, redisKeyPrefix: prefix, session: { strategy: 'database' } }).app
  await sleep(2000)
  expect(cut).toBe(true)
  const planted = await plantSession(admin, prefix)
  const gets = async () => Number(/cmdstat_get:calls=(\d+)/.exec(String(await admin.info('commandstats')))?.[1] ?? 0)
  const before = await gets()
  await warm(app, planted.cookie, 10)
  const reads = (await gets()) - before
  // With the cache on: 1 GET (a few more on a loaded machine, where a PING can take over 50 ms and a
  // read then goes to Redis); off: 10.
  expect(reads).toBeLessThanOrEqual(4)
})
