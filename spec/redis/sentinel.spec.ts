import { makeApp } from '../support/app'
import { Tally, answerFor, signOut } from '../support/failover'
import { untilReady } from '../support/redis'
import { redisSentinel, type TestSentinel } from '../support/redis-sentinel'
import { VECTORS, sessionCookie } from '../support/sessions'
import { askSession, plantSession, sleep, warm } from '../support/tracking'

// The service on Redis Sentinel (a primary, a replica, three sentinels, all real redis-server
// processes), through an ioredis client of the app's own that finds the primary by asking the
// sentinels. The primary is killed: while the sentinels promote the replica, every request for a
// session answers 503 or the right session, never another answer (a session signed out before,
// or "no session" for one that is valid, which would sign its user out); once the replica is the
// primary, sessions work again and can be changed, with nothing restarted.
jest.setTimeout(120_000)

let group: TestSentinel
beforeAll(async () => {
  group = await redisSentinel()
})
afterAll(async () => {
  await group?.close()
})

it('keeps database and cookie sessions working across a failover: 503 during it, never a wrong answer', async () => {
  const prefix = 'sentinel-failover:'
  const client = group.client({ retryStrategy: () => 100 })
  const database = makeApp({ redis: client, redisKeyPrefix: prefix, session: { strategy: 'database' } }).app
  const cookies = makeApp({ redis: client, redisKeyPrefix: `${prefix}cookies:` }).app
  const primary = group.direct(await group.primaryPort())
  await untilReady(client)
  await sleep(300) // the tracking connections are up
  const kept = await plantSession(primary, prefix, 'Kept')
  const ended = await plantSession(primary, prefix, 'Ended')
  const cookie = sessionCookie(VECTORS.ada)
  for (const planted of [kept, ended]) await warm(database, planted.cookie)
  await warm(cookies, cookie)
  await signOut(database, ended.cookie)
  expect(await askSession(database, ended.cookie)).toEqual({})
  // Replicated before the crash (Redis replicates asynchronously: a write not yet on the replica is lost with the primary).
  expect(await primary.wait(1, 2000)).toBe(1)

  const old = await group.killPrimary()
  let promoted: number | undefined
  const promotion = group.untilPromoted(old).then((port) => (promoted = port))
  const seen = { kept: new Tally(), ended: new Tally(), cookie: new Tally() }
  while (promoted === undefined) {
    seen.kept.add(await answerFor(database, kept.cookie, 'Kept'))
    seen.ended.add(await answerFor(database, ended.cookie, 'Ended'))
    seen.cookie.add(await answerFor(cookies, cookie, 'Ada'))
    await sleep(20)
  }
  await promotion
  // During the switch: the right session or 503, nothing else.
  expect(seen.kept.besides('served', '503')).toEqual([])
  expect(seen.ended.besides('refused', '503')).toEqual([])
  expect(seen.cookie.besides('served', '503')).toEqual([])
  expect(seen.kept.counts.get('503')).toBeGreaterThan(0)

  // After it, with nothing restarted: served again once the client found the new primary, and changes work.
  const recovered = performance.now()
  let after = '503'
  while (after === '503' && performance.now() - recovered < 15_000) {
    after = await answerFor(database, kept.cookie, 'Kept')
    if (after === '503') await sleep(50)
  }
  expect(after).toBe('served')
  expect(await answerFor(database, ended.cookie, 'Ended')).toBe('refused')
  expect(await answerFor(cookies, cookie, 'Ada')).toBe('served')
  await signOut(database, kept.cookie)
  expect(await askSession(database, kept.cookie)).toEqual({})
  process.stdout.write(
    `sentinel failover: kept ${seen.kept.toString()}, ended ${seen.ended.toString()}, cookie ${seen.cookie.toString()}; served again ${(
      performance.now() - recovered
    ).toFixed(0)} ms after the promotion was seen\n`,
  )
})
