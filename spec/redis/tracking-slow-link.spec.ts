import Redis from 'ioredis'
import { makeApp } from '../support/app'
import { sharedRedis, type SharedRedis } from '../support/redis'
import { askSession, plantSession, redisProxy, sleep, warm, type RedisProxy } from '../support/tracking'

// Database sessions read through the client-side cache (lib/infra/store/redis/) over a link to Redis
// that slows down step by step: replies keep coming, each later than the last. The cache trusts
// its invalidations only while a PING sent less than 50 ms ago has come back, so it stops answering
// from memory, and a session deleted in Redis (a sign-out on another instance) is not answered
// seconds later. (Judged by when PONGs arrived, a steady trickle kept it on forever.)
jest.setTimeout(60_000)

let redis: SharedRedis
let proxy: RedisProxy
/** Extra delay of every byte Redis sends to this instance (server -> client), in ms. */
let lagMs = 0
let viaProxy: Redis | undefined

beforeAll(async () => {
  redis = await sharedRedis()
  const target = new URL(redis.url)
  proxy = await redisProxy({ host: target.hostname, port: Number(target.port) }, { lagMs: () => lagMs })
})

afterAll(async () => {
  viaProxy?.disconnect()
  await proxy?.close()
  await redis?.close()
})

it('stops answering from memory when the link to Redis slows down, so a session deleted there is not answered', async () => {
  const direct = redis.client()
  const prefix = redis.prefix('attack-lag')
  viaProxy = new Redis({ port: proxy.port, host: '127.0.0.1' })
  const { app } = makeApp({
    redis: viaProxy,
    redisKeyPrefix: prefix,
    session: { strategy: 'database', revocationDelay: 600 },
    storeTimeout: 20_000,
  })
  const planted = await plantSession(direct, prefix)
  await sleep(500) // tracking on
  await warm(app, planted.cookie)

  // The link slows down by steps of 1 s every 2 s: PONGs keep coming, never more than 2 s apart.
  for (const lag of [1000, 2000, 3000, 4000, 5000, 6000]) {
    lagMs = lag
    await sleep(2000)
  }
  expect(await askSession(app, planted.cookie)).toHaveProperty('user') // still there in Redis

  // "Another instance" signs the session out: the record is deleted in Redis.
  await direct.del(planted.key)
  expect(await direct.exists(planted.key)).toBe(0)
  // 4 s later, a read from Redis finds nothing; an answer from memory would still give the session.
  await sleep(4000)
  const answered = await askSession(app, planted.cookie)
  lagMs = 0
  expect(answered).toEqual({})
})
