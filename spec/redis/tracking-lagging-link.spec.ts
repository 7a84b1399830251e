import Redis from 'ioredis'
import request from 'supertest'
import { makeApp } from '../support/app'
import { csrfPair } from '../support/csrf'
import { sharedRedis, untilReady, type SharedRedis } from '../support/redis'
import { askSession, plantSession, redisProxy, sleep, warm, type RedisProxy } from '../support/tracking'

// One instance reaches Redis over a link that delivers everything late (200 ms, then 1 s, from
// Redis to the instance), while another instance signs a session out. The first instance may answer
// from memory only while a PING sent less than 50 ms ago has come back (lib/infra/store/redis/liveness.ts),
// so over this link it never does: every request that starts 50 ms or more after the sign-out was
// answered is refused, instead of the session being served from memory until the late invalidation
// arrives (about the link's delay: 163 requests in 1 s).
jest.setTimeout(60_000)

/** The documented bound (docs/session-stores.md): how much older than Redis an answer from memory can be. */
const FRESH_MS = 50

let redis: SharedRedis
let proxy: RedisProxy
let lagMs = 0
const clients: Redis[] = []

beforeAll(async () => {
  redis = await sharedRedis()
  const target = new URL(redis.url)
  proxy = await redisProxy({ host: target.hostname, port: Number(target.port) }, { lagMs: () => lagMs })
})
afterAll(async () => {
  for (const client of clients) client.disconnect()
  await proxy?.close()
  await redis?.close()
})

it.each([150, 400, 1000])(
  'refuses a session signed out on another instance once Redis has it, over a link %i ms late',
  async (lag) => {
    lagMs = lag
    const prefix = redis.prefix('tracking-late')
    const late = new Redis({ port: proxy.port, host: '127.0.0.1' })
    clients.push(late)
    await untilReady(late)
    const options = { redisKeyPrefix: prefix, session: { strategy: 'database' as const } }
    const a = makeApp({ ...options, redis: late, storeTimeout: 5000 }).app
    const b = makeApp({ ...options, redis: redis.client() }).app
    await sleep(4 * lag + 300) // a's tracking set up: three exchanges over the late link
    const planted = await plantSession(redis.client(), prefix)
    await warm(a, planted.cookie)

    const { token, cookie: csrf } = await csrfPair(b)
    await request(b)
      .post('/api/auth/signout')
      .set('Cookie', `${planted.cookie}; ${csrf}`)
      .type('form')
      .send({ csrfToken: token })
      .expect(302)
    const signedOut = performance.now()
    /** When each request that still got the session started, in ms after the sign-out was answered. */
    const served: number[] = []
    while (performance.now() - signedOut < lag + 500) {
      const started = performance.now() - signedOut
      if ('user' in (await askSession(a, planted.cookie))) served.push(Math.round(started))
    }
    late.disconnect()
    expect(served.filter((started) => started >= FRESH_MS)).toEqual([])
  },
)
