import { redisSessionStore } from '../../lib'
import { callStore } from '../../lib/infra/store/express-session-store'
import { configError } from '../support/config-error'
import { sharedRedisForFile } from '../support/redis'
import { describeStoreContract } from '../support/store-contract'

// connect-redis over one real Redis (REDIS_URL, or a redis-server of the specs' own), under a key
// prefix of this spec's own: the contract every database store is held to.
const db = sharedRedisForFile('database-sessions')

describeStoreContract('Redis (connect-redis over ioredis)', async () => ({
  options: { redis: db.client, redisKeyPrefix: db.prefix, session: { strategy: 'database' } },
  stored: async (sid) => {
    const value = await db.client.get(`${db.prefix}sess:${sid}`)
    return value === null ? null : (JSON.parse(value) as unknown)
  },
}))

describe('redisSessionStore, for apps that want the same store elsewhere', () => {
  it('keeps an express-session session under its prefix until its cookie expires', async () => {
    const store = redisSessionStore(db.client, { prefix: `${db.prefix}app-sess:` })
    const expires = new Date(Date.now() + 60_000).toISOString()
    await callStore((done) => store.set('sid-1', { cookie: { expires }, cart: 3 }, done))
    expect(await callStore((done) => store.get('sid-1', done))).toEqual({ cookie: { expires }, cart: 3 })
    const ttl = await db.client.ttl(`${db.prefix}app-sess:sid-1`)
    expect(ttl).toBeGreaterThan(55)
    expect(ttl).toBeLessThanOrEqual(60)
    await callStore((done) => store.destroy('sid-1', done))
    expect(await db.client.exists(`${db.prefix}app-sess:sid-1`)).toBe(0)
  })

  it('refuses anything but an ioredis client, saying what to pass', () => {
    expect(configError(() => redisSessionStore('redis://localhost' as never))).toMatch(
      /redisSessionStore\(\) takes an ioredis client/,
    )
  })
})
