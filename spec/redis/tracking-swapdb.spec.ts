import { ownRedisForFile } from '../support/redis'
import {
  askSession,
  cachedApp,
  manualClock,
  plantSession,
  readOf,
  sleep,
  trackedReads,
  warm,
} from '../support/tracking'

// Changes to the whole database under the client-side cache (lib/infra/store/redis/). FLUSHDB and
// FLUSHALL send a null invalidation: everything held is dropped as soon as it arrives. SWAPDB sends
// none at all (Redis 7.0): nothing read is held 10 s or longer (docs/session-stores.md), on a clock
// the spec moves, so the window can neither grow nor shrink unnoticed.
jest.setTimeout(60_000)

const own = ownRedisForFile()

it('refuses a session flushed away with FLUSHDB as soon as the invalidation arrives', async () => {
  const admin = own().client()
  const prefix = 'tracking-flush:'
  const app = await cachedApp(own().client(), prefix)
  const planted = await plantSession(admin, prefix)
  await warm(app, planted.cookie)
  await admin.flushdb()
  // The invalidation comes on the cache's own connection, not with FLUSHDB's reply: under load it
  // can arrive a moment later. Within 1 s it is there, long before anything held would expire.
  const flushedAt = Date.now()
  let answer = await askSession(app, planted.cookie)
  while ('user' in answer && Date.now() - flushedAt < 1000) {
    await sleep(10)
    answer = await askSession(app, planted.cookie)
  }
  expect(answer).toEqual({})
})

it('holds what it read 10 s at most: a value swapped away with SWAPDB, which Redis does not announce, is read again at 10 s', async () => {
  const clock = manualClock()
  const tracked = await trackedReads(own().client(), ['tracking-swapdb:'], clock.now)
  const key = 'tracking-swapdb:sess:a'
  await own().client({ db: 0 }).set(key, 'before')
  await own().client({ db: 1 }).set(key, 'after')
  await sleep(100) // the SET's own invalidation has arrived
  expect(await readOf(tracked, key)).toEqual({ value: 'before', fromRedis: true })
  await own().client().swapdb(0, 1)
  expect(await own().client().get(key)).toBe('after')

  clock.advance(9_999)
  // A PING sent at the new time has come back: the connection is fresh, and nothing told it of the swap.
  tracked.held(key, '')
  for (let i = 0; i < 100 && tracked.version(key) === undefined; i++) await sleep(10)
  expect(await readOf(tracked, key)).toEqual({ value: 'before', fromRedis: false })
  clock.advance(1)
  expect(await readOf(tracked, key)).toEqual({ value: 'after', fromRedis: true })
})
