import type { Redis } from 'ioredis'
import request from 'supertest'
import { makeApp } from '../support/app'
import { csrfPair } from '../support/csrf'
import { monitorCommands, sharedRedis, type SharedRedis } from '../support/redis'
import { plantSession as plant, rewrite, sessionId, sleep } from '../support/tracking'

// Database sessions in Redis are kept in each instance's memory, current by Redis's client-side
// caching (lib/infra/store/redis/). Two instances share one Redis here; the sessions are
// written into Redis the way the store writes them, and every change made elsewhere must be seen
// by the other instance on its very next request.

let redis: SharedRedis
let client: Redis
let monitor: Redis
const commands: string[][] = []

beforeAll(async () => {
  redis = await sharedRedis()
  client = redis.client()
  monitor = await monitorCommands(redis.client(), (args) => commands.push(args))
})

afterAll(async () => {
  monitor?.disconnect()
  await redis.close()
})

/** A service instance on the shared Redis, with database sessions under `prefix`. */
function instance(prefix: string) {
  return makeApp({
    redis: client,
    redisKeyPrefix: prefix,
    session: { strategy: 'database' },
  })
}

/** A session written into Redis as another instance's store would. */
const plantSession = (prefix: string, name?: string) => plant(client, prefix, name)

type Instance = ReturnType<typeof instance>
type App = Instance['app']

const session = async (app: App, cookie: string) =>
  (await request(app).get('/api/auth/session').set('Cookie', cookie).expect(200)).body as Record<string, unknown>

/** How many connections broadcast-track keys (each instance has one; it connects when the instance is built). */
async function trackedConnections(): Promise<number> {
  const list = String(await client.client('LIST'))
  return list.split('\n').filter((line) => / flags=\w*B/.test(line)).length
}

/** Builds `count` instances and waits until each has tracking on. */
async function instances(prefix: string, count: number): Promise<[Instance, ...Instance[]]> {
  const before = await trackedConnections()
  const built = Array.from({ length: count }, () => instance(prefix))
  for (let i = 0; i < 100 && (await trackedConnections()) < before + count; i++) await sleep(20)
  if ((await trackedConnections()) < before + count) throw new Error('tracking never came on')
  return built as [Instance, ...Instance[]]
}

/** The GETs of `key` Redis received so far (MONITOR's lines come on their own connection). */
async function readsOf(key: string) {
  await sleep(100)
  return commands.filter(([name, arg]) => name!.toLowerCase() === 'get' && arg === key).length
}

describe('database sessions in Redis, read through the client-side cache', () => {
  it('reads a session from Redis once, then from memory until it changes', async () => {
    const prefix = redis.prefix('tracked')
    const [{ app }] = await instances(prefix, 1)
    const planted = await plantSession(prefix)
    for (let i = 0; i < 3; i++) expect(await session(app, planted.cookie)).toMatchObject({ user: { name: 'Ada' } })
    expect(await readsOf(planted.key)).toBe(1)
    await rewrite(client, planted, { user: { name: 'Ada L.' } })
    expect(await session(app, planted.cookie)).toMatchObject({ user: { name: 'Ada L.' } })
    expect(await readsOf(planted.key)).toBe(2)
  })

  it('sees at once a session signed out, updated or revoked through the other instance', async () => {
    const prefix = redis.prefix('two-instances')
    const [one, other] = (await instances(prefix, 2)) as [Instance, Instance]
    const signedOut = await plantSession(prefix)
    const revoked = await plantSession(prefix, 'Grace')
    const changed = await plantSession(prefix, 'Edsger')
    // Asked three times: read from Redis, then from memory, then the answer remembered (reply cache).
    for (const { cookie } of [signedOut, revoked, changed]) {
      for (let i = 0; i < 3; i++) expect(await session(one.app, cookie)).toHaveProperty('user')
      expect(await session(other.app, cookie)).toHaveProperty('user')
    }
    const { token, cookie: csrf } = await csrfPair(other.app)
    await request(other.app)
      .post('/api/auth/signout')
      .set('Cookie', `${signedOut.cookie}; ${csrf}`)
      .type('form')
      .send({ csrfToken: token })
      .expect(302)
    expect(await session(one.app, signedOut.cookie)).toEqual({})
    await other.router.revokeSessions(revoked.userId)
    expect(await session(one.app, revoked.cookie)).toEqual({})
    await rewrite(client, changed, { user: { name: 'E. W. Dijkstra' } })
    expect(await session(one.app, changed.cookie)).toMatchObject({ user: { name: 'E. W. Dijkstra' } })
  })

  it("refuses at once a session taken off its user's index elsewhere, its record left in place", async () => {
    const prefix = redis.prefix('unlisted')
    const [{ app }] = await instances(prefix, 1)
    const planted = await plantSession(prefix)
    for (let i = 0; i < 3; i++) expect(await session(app, planted.cookie)).toHaveProperty('user')
    await client.zrem(planted.index, sessionId(planted.token))
    expect(await session(app, planted.cookie)).toEqual({})
  })

  it('drops everything it holds when its invalidation connection is cut, and reads from Redis again', async () => {
    const prefix = redis.prefix('cut')
    const [{ app }] = await instances(prefix, 1)
    const planted = await plantSession(prefix)
    for (let i = 0; i < 3; i++) expect(await session(app, planted.cookie)).toHaveProperty('user')
    // The newest connection with the flag is this instance's.
    const ids = String(await client.client('LIST'))
      .split('\n')
      .filter((line) => / flags=\w*B/.test(line))
      .map((line) => Number(/^id=(\d+)/.exec(line)![1]))
    // Changed right after the cut, before the connection is back: nobody can tell this instance,
    // and only dropping what it holds keeps it right.
    await client.client('KILL', 'ID', String(Math.max(...ids)))
    await client.del(planted.key)
    await sleep(300)
    expect(await session(app, planted.cookie)).toEqual({})
  })
})
