import { randomBytes } from 'node:crypto'
import type Redis from 'ioredis'
import { ownRedisForFile } from '../support/redis'
import {
  askSession as ask,
  cachedApp,
  plantSession,
  rewrite,
  sessionId,
  sleep,
  warm,
  type App,
} from '../support/tracking'

// The client-side cache (lib/infra/store/redis/tracking.ts) under an ACL user refused what it needs (it
// stays off, and every change is seen), and on a database other than 0.
jest.setTimeout(60_000)

const own = ownRedisForFile()

async function everyChangeSeen(app: App, raw: Redis, prefix: string) {
  const planted = await plantSession(raw, prefix)
  await warm(app, planted.cookie)
  await rewrite(raw, planted, { user: { name: 'Changed' } })
  expect(await ask(app, planted.cookie)).toMatchObject({ user: { name: 'Changed' } })
  await raw.del(planted.key)
  expect(await ask(app, planted.cookie)).toEqual({})
}

it.each([
  ['no channels (SUBSCRIBE refused)', ['resetchannels', '+@all']],
  ['CLIENT TRACKING refused, CLIENT ID allowed', ['&*', '+@all', '-client|tracking']],
  ['PING refused', ['&*', '+@all', '-ping']],
])('ACL %s: cache never on, every change seen', async (_name, rules) => {
  const admin = own().client()
  const user = `u${randomBytes(4).toString('hex')}`
  const password = randomBytes(8).toString('hex')
  await admin.call('ACL', 'SETUSER', user, 'on', `>${password}`, '~*', ...rules)
  const prefix = `tracking-acl-${user}:`
  const main = own().client({ username: user, password })
  const app = await cachedApp(main, prefix)
  await sleep(3000)
  await everyChangeSeen(app, admin, prefix)
  await sleep(3000)
  await everyChangeSeen(app, admin, prefix)
})

it('sees changes in database 3, and a key of the same name changed in database 0 only drops what it held', async () => {
  const admin3 = own().client({ db: 3 })
  const admin0 = own().client({ db: 0 })
  const prefix = 'tracking-db3:'
  const app = await cachedApp(own().client({ db: 3 }), prefix)
  await everyChangeSeen(app, admin3, prefix)
  const planted = await plantSession(admin3, prefix)
  await warm(app, planted.cookie)
  await admin0.set(planted.key, 'x')
  expect(await ask(app, planted.cookie)).toHaveProperty('user') // db 3 unchanged: still the session
  await admin3.del(planted.key)
  expect(await ask(app, planted.cookie)).toEqual({})
})

describe("a user's revocation time written in Redis by another instance (sign-out everywhere)", () => {
  /** Revokes the planted session's user from the next second on, as `revokeSessions` on another instance does. */
  const revokeInRedis = async (raw: Redis, prefix: string, userId: string, signedInAt: number) =>
    raw.set(`${prefix}rev:${sessionId(userId)}`, String(signedInAt + 1), 'EX', 3600)

  it('is seen at once while tracking is on', async () => {
    const admin = own().client()
    const prefix = `tracking-rev-on-${randomBytes(4).toString('hex')}:`
    const app = await cachedApp(own().client(), prefix, { session: { strategy: 'database', revocationDelay: 600 } })
    const planted = await plantSession(admin, prefix)
    await warm(app, planted.cookie)
    await revokeInRedis(admin, prefix, planted.userId, planted.record.auth_time as number)
    expect(await ask(app, planted.cookie)).toEqual({})
  })

  it('is seen within revocationDelay, never later, when tracking is refused (ACL without CLIENT TRACKING)', async () => {
    const admin = own().client()
    const user = `u${randomBytes(4).toString('hex')}`
    const password = randomBytes(8).toString('hex')
    await admin.call('ACL', 'SETUSER', user, 'on', `>${password}`, '~*', '&*', '+@all', '-client|tracking')
    const prefix = `tracking-rev-off-${user}:`
    const main = own().client({ username: user, password })
    const app = await cachedApp(main, prefix, { session: { strategy: 'database', revocationDelay: 1 } })
    const planted = await plantSession(admin, prefix)
    await warm(app, planted.cookie)
    const revokedAt = performance.now()
    await revokeInRedis(admin, prefix, planted.userId, planted.record.auth_time as number)
    await sleep(1000 - (performance.now() - revokedAt) + 50)
    expect(await ask(app, planted.cookie)).toEqual({})
  })
})
