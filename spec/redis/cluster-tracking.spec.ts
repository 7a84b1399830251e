import Redis, { type Cluster } from 'ioredis'
import { makeApp } from '../support/app'
import { redisCluster, type TestCluster } from '../support/redis'
import { askSession as ask, plantSession, rewrite, sessionId, sleep, warm } from '../support/tracking'

// Database sessions on a Redis Cluster of three masters, held in memory and kept current by one
// tracking connection per master (lib/infra/store/redis/cluster-tracking.ts): a session answered again
// and again costs Redis nothing, and a change made by anyone else (an update, a sign-out, a
// revocation of the user) is seen at once, whichever master holds the key.
jest.setTimeout(60_000)

let cluster: TestCluster
let client: Cluster

beforeAll(async () => {
  cluster = await redisCluster()
  client = cluster.client()
  client.on('error', () => undefined)
  await client.ping()
}, 60_000)

afterAll(() => cluster?.close())

/** Reads of session keys (GET, ZSCORE) every node ran so far. */
async function reads(): Promise<number> {
  let total = 0
  for (const { port } of cluster.nodes) {
    const node = new Redis({ host: '127.0.0.1', port })
    const stats = await node.info('commandstats')
    node.disconnect()
    for (const command of ['get', 'zscore'])
      total += Number(new RegExp(`^cmdstat_${command}:calls=(\\d+)`, 'm').exec(stats)?.[1] ?? 0)
  }
  return total
}

it('answers held sessions without reading Redis, and sees every change made elsewhere at once', async () => {
  const prefix = 'cluster-tracking:'
  const { app } = makeApp({ redis: client, redisKeyPrefix: prefix, session: { strategy: 'database' } })
  await sleep(500) // our connections to each master are up
  const raw = client as unknown as Redis
  const planted = await Promise.all([1, 2, 3, 4, 5, 6].map((n) => plantSession(raw, prefix, `User ${n}`)))
  for (const session of planted) await warm(app, session.cookie)

  const before = await reads()
  for (let round = 0; round < 10; round++)
    for (const session of planted) expect(await ask(app, session.cookie)).toHaveProperty('user')
  expect((await reads()) - before).toBe(0)

  const [changed, deleted, unlisted, revoked] = planted as [
    (typeof planted)[0],
    (typeof planted)[0],
    (typeof planted)[0],
    (typeof planted)[0],
  ]
  await rewrite(raw, changed, { user: { name: 'Changed' } })
  expect(await ask(app, changed.cookie)).toMatchObject({ user: { name: 'Changed' } })
  await client.del(deleted.key)
  expect(await ask(app, deleted.cookie)).toEqual({})
  await client.zrem(unlisted.index, sessionId(unlisted.token))
  expect(await ask(app, unlisted.cookie)).toEqual({})
  const signedInAt = revoked.record.auth_time as number
  await client.set(`${prefix}rev:${sessionId(revoked.userId)}`, String(signedInAt + 1), 'EX', 3600)
  expect(await ask(app, revoked.cookie)).toEqual({})
})

it('lets twelve auth() share one Cluster client without a MaxListeners warning, each following the cluster', async () => {
  // Node warns (MaxListenersExceededWarning, on stderr) at the 11th listener of one event.
  const listeners = () => ['refresh', '+node', '-node'].map((event) => client.listenerCount(event))
  const before = listeners()
  const prefix = 'cluster-shared:'
  const apps = Array.from(
    { length: 12 },
    () => makeApp({ redis: client, redisKeyPrefix: prefix, session: { strategy: 'database' } }).app,
  )
  const added = listeners().map((count, i) => count - before[i]!)
  expect(Math.max(...added)).toBeLessThanOrEqual(1)
  await sleep(500)
  const raw = client as unknown as Redis
  const planted = await plantSession(raw, prefix, 'Shared')
  for (const app of apps) await warm(app, planted.cookie)
  const start = await reads()
  for (const app of apps) expect(await ask(app, planted.cookie)).toHaveProperty('user')
  expect((await reads()) - start).toBe(0)
  await client.del(planted.key)
  for (const app of apps) expect(await ask(app, planted.cookie)).toEqual({})
  // The slots read again reach every auth() through the one listener: each drops what it held
  // only if the masters changed (they did not), and answers from memory afterwards.
  const again = await plantSession(raw, prefix, 'Again')
  client.refreshSlotsCache()
  await sleep(300)
  for (const app of apps) await warm(app, again.cookie)
  const after = await reads()
  for (const app of apps) expect(await ask(app, again.cookie)).toHaveProperty('user')
  expect((await reads()) - after).toBe(0)
})
