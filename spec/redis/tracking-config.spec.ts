import { randomBytes } from 'node:crypto'
import request from 'supertest'
import { makeApp } from '../support/app'
import { csrfPair } from '../support/csrf'
import { ownRedis, sharedRedis, type OwnRedis, type SharedRedis } from '../support/redis'
import { askSession as session, cachedApp, plantSession, rewrite, sessionId, sleep, warm } from '../support/tracking'

// The Redis client-side cache (lib/infra/store/redis/tracking.ts) under the client's own configuration
// and the server's: ioredis keyPrefix, an ACL user refused CLIENT, a Redis restart, and requests
// with made-up, well-formed tokens (which must leave nothing tracked in Redis).
jest.setTimeout(60_000)

let shared: SharedRedis
let own: OwnRedis
beforeAll(async () => {
  shared = await sharedRedis()
  own = await ownRedis()
})
afterAll(async () => {
  await shared?.close()
  await own?.close()
})

it('keyPrefix on the ioredis client: changes made elsewhere are seen at once', async () => {
  const prefix = shared.prefix('attack-kp')
  const keyPrefix = `kp${randomBytes(3).toString('hex')}:`
  const raw = shared.client()
  const mk = () =>
    makeApp({
      redis: shared.client({ keyPrefix }),
      redisKeyPrefix: prefix,
      session: { strategy: 'database' },
    })
  const a = mk()
  const b = mk()
  await sleep(300)
  const changed = await plantSession(raw, keyPrefix + prefix)
  const signedOut = await plantSession(raw, keyPrefix + prefix)
  const unlisted = await plantSession(raw, keyPrefix + prefix)
  for (const s of [changed, signedOut, unlisted]) await warm(a.app, s.cookie, 4)
  await rewrite(raw, changed, { user: { name: 'Changed' } })
  expect(await session(a.app, changed.cookie)).toMatchObject({ user: { name: 'Changed' } })
  const { token, cookie: csrf } = await csrfPair(b.app)
  await request(b.app)
    .post('/api/auth/signout')
    .set('Cookie', `${signedOut.cookie}; ${csrf}`)
    .type('form')
    .send({ csrfToken: token })
    .expect(302)
  expect(await session(a.app, signedOut.cookie)).toEqual({})
  await raw.zrem(unlisted.index, sessionId(unlisted.token))
  expect(await session(a.app, unlisted.cookie)).toEqual({})
  await shared.deleteKeys(keyPrefix)
})

it('an ACL user refused CLIENT: no cache, every change seen, no crash', async () => {
  const admin = own.client()
  const password = randomBytes(8).toString('hex')
  await admin.call('ACL', 'SETUSER', 'noclient', 'on', `>${password}`, '~*', '&*', '+@all', '-client')
  const prefix = 'attack-acl:'
  const noclient = own.client({ username: 'noclient', password })
  const app = await cachedApp(noclient, prefix)
  const planted = await plantSession(admin, prefix)
  await warm(app, planted.cookie, 4)
  await rewrite(admin, planted, { user: { name: 'Changed' } })
  expect(await session(app, planted.cookie)).toMatchObject({ user: { name: 'Changed' } })
  await admin.del(planted.key)
  expect(await session(app, planted.cookie)).toEqual({})
  // No connection of ours has tracking on.
  const list = String(await admin.client('LIST'))
  expect(list.split('\n').filter((line) => / flags=t /.test(line))).toHaveLength(0)
  noclient.disconnect() // before the restart below, which forgets the user
})

it('a Redis restart (data gone) while the session is held: refused after the restart', async () => {
  const admin = own.client()
  const prefix = 'attack-restart:'
  const app = await cachedApp(own.client({ retryStrategy: () => 50 }), prefix)
  const planted = await plantSession(admin, prefix)
  await warm(app, planted.cookie, 4)
  await own.stop('SIGKILL')
  const during = await request(app).get('/api/auth/session').set('Cookie', planted.cookie)
  // While Redis is down: never the held session.
  expect(during.body).not.toHaveProperty('user')
  await own.start()
  await sleep(500)
  expect(await session(app, planted.cookie)).toEqual({})
})

it('leaves nothing tracked in Redis for requests with made-up, well-formed session tokens', async () => {
  const admin = own.client()
  const prefix = 'tracking-fill:'
  const app = await cachedApp(own.client(), prefix)
  const keys = async () => Number(/tracking_total_keys:(\d+)/.exec(String(await admin.info('stats')))![1])
  const before = await keys()
  const N = 1000
  for (let i = 0; i < N; i += 50) {
    await Promise.all(
      Array.from({ length: 50 }, () => session(app, `auth.session-token=${randomBytes(32).toString('base64url')}`)),
    )
  }
  const after = await keys()
  // Broadcast tracking keeps prefixes, not keys: the default mode would track each key read here
  // (bounded only by tracking-table-max-keys, a million by default: about 170 MB of Redis).
  expect(after - before).toBe(0)
})
