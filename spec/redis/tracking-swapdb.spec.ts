import { ownRedisForFile } from '../support/redis'
import { askSession, cachedApp, plantSession, sleep, warm } from '../support/tracking'

// Changes to the whole database under the client-side cache (lib/store/redis-tracking.ts). FLUSHDB
// and FLUSHALL send a null invalidation: everything held is dropped as soon as it arrives. SWAPDB
// sends none at all (Redis 7.0): nothing read is held longer than 10 s, so a session swapped away
// is refused within that, while the link stays healthy throughout.
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

it('refuses within 10 s a session swapped out of the database with SWAPDB, which Redis does not announce', async () => {
  const admin = own().client()
  const prefix = 'tracking-swapdb:'
  const app = await cachedApp(own().client(), prefix)
  const planted = await plantSession(admin, prefix)
  await warm(app, planted.cookie)
  // Database 1 is empty: after the swap, database 0 (the app's) holds no session at all.
  await admin.swapdb(0, 1)
  expect(await admin.exists(planted.key)).toBe(0)
  await sleep(1000)
  // Held for now (nothing told this instance), however healthy the link.
  expect(await askSession(app, planted.cookie)).toHaveProperty('user')
  await sleep(9500)
  expect(await own().client().get(planted.key)).toBeNull()
  expect(await askSession(app, planted.cookie)).toEqual({})
})
