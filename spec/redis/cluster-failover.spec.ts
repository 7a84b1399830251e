import Redis, { type Cluster } from 'ioredis'
import { makeApp } from '../support/app'
import { Tally, answerFor, signOut } from '../support/failover'
import { redisCluster, type TestCluster } from '../support/redis'
import { VECTORS, sessionCookie } from '../support/sessions'
import { askSession, plantSession, sleep, warm } from '../support/tracking'

// The service on a Redis Cluster with a replica for each of its three masters (six redis-server
// processes). The master holding a session is killed: while its replica takes over, every request
// for a session answers 503 or the right session, never another answer (a session signed out
// before, or "no session" for a valid one); once the replica is the master, sessions work again
// and can be changed, with nothing restarted.
jest.setTimeout(120_000)

let cluster: TestCluster
let client: Cluster
const direct: Redis[] = []

beforeAll(async () => {
  cluster = await redisCluster({ replicas: 1 })
  client = cluster.client()
  client.on('error', () => undefined)
  await client.ping()
}, 60_000)

afterAll(async () => {
  // disconnect() of an ended client arms a timer nothing clears.
  for (const connection of direct) if (connection.status !== 'end') connection.disconnect()
  await cluster?.close()
})

/** The port of the master holding `key`'s slot, as the node on `askPort` sees it. */
async function masterOf(key: string, askPort: number): Promise<number | null> {
  const slot = Number(await client.cluster('KEYSLOT', key))
  const node = new Redis({ host: '127.0.0.1', port: askPort, lazyConnect: true, retryStrategy: () => null })
  node.on('error', () => undefined)
  direct.push(node)
  try {
    const ranges = await node.cluster('SLOTS')
    const range = ranges.find(([start, end]) => start <= slot && slot <= end)
    return range?.[2]?.[1] ?? null
  } catch {
    return null
  } finally {
    node.disconnect()
  }
}

/** Resolves once every master's replica has every write the master made (same replication offset). */
async function replicated(): Promise<void> {
  for (const { port } of cluster.nodes) {
    const node = new Redis({ host: '127.0.0.1', port })
    direct.push(node)
    for (;;) {
      const info = await node.info('replication')
      if (!/^role:master/m.test(info)) break
      const offset = /^master_repl_offset:(\d+)/m.exec(info)?.[1]
      const replica = /^slave0:.*offset=(\d+)/m.exec(info)?.[1]
      if (offset !== undefined && offset === replica) break
      await sleep(20)
    }
    node.disconnect()
  }
}

it('keeps sessions working when a master is killed and its replica promoted: 503 meanwhile, never a wrong answer', async () => {
  const prefix = 'cluster-failover:'
  const database = makeApp({ redis: client, redisKeyPrefix: prefix, session: { strategy: 'database' } }).app
  const cookies = makeApp({ redis: client, redisKeyPrefix: `${prefix}cookies:` }).app
  const raw = client as unknown as Redis
  const kept = await plantSession(raw, prefix, 'Kept')
  const ended = await plantSession(raw, prefix, 'Ended')
  const cookie = sessionCookie(VECTORS.ada)
  for (const planted of [kept, ended]) await warm(database, planted.cookie)
  await warm(cookies, cookie)
  await signOut(database, ended.cookie)
  expect(await askSession(database, ended.cookie)).toEqual({})
  await replicated()

  const victim = (await masterOf(kept.key, cluster.nodes[0]!.port))!
  const survivor = cluster.nodes.find(({ port }) => port !== victim)!.port
  await cluster.kill(victim)
  const seen = { kept: new Tally(), ended: new Tally(), cookie: new Tally() }
  const killedAt = performance.now()
  let owner: number | null = victim
  while (owner === victim || owner === null) {
    seen.kept.add(await answerFor(database, kept.cookie, 'Kept'))
    seen.ended.add(await answerFor(database, ended.cookie, 'Ended'))
    seen.cookie.add(await answerFor(cookies, cookie, 'Ada'))
    owner = await masterOf(kept.key, survivor)
    expect(performance.now() - killedAt).toBeLessThan(60_000)
    await sleep(20)
  }
  const promotedAt = performance.now()
  expect(seen.kept.besides('served', '503')).toEqual([])
  expect(seen.ended.besides('refused', '503')).toEqual([])
  expect(seen.cookie.besides('served', '503')).toEqual([])
  expect(seen.kept.counts.get('503')).toBeGreaterThan(0)

  // With nothing restarted: served again once the client knows the new master, and changes work.
  let after = '503'
  while (after === '503' && performance.now() - promotedAt < 20_000) {
    after = await answerFor(database, kept.cookie, 'Kept')
    if (after === '503') await sleep(50)
  }
  expect(after).toBe('served')
  const recoveredMs = performance.now() - promotedAt
  expect(await answerFor(database, ended.cookie, 'Ended')).toBe('refused')
  expect(await answerFor(cookies, cookie, 'Ada')).toBe('served')
  await signOut(database, kept.cookie)
  expect(await askSession(database, kept.cookie)).toEqual({})
  process.stdout.write(
    `cluster failover: promoted ${(promotedAt - killedAt).toFixed(0)} ms after the kill; answers meanwhile: kept ` +
      `${seen.kept.toString()}, ended ${seen.ended.toString()}, ` +
      `cookie ${seen.cookie.toString()}; served again ${recoveredMs.toFixed(0)} ms after\n`,
  )
})
