import { randomBytes } from 'node:crypto'
import { ownRedisForFile } from '../support/redis'
import { manualClock, readOf, sessionId, sleep, trackedReads } from '../support/tracking'

// Requests with random, well-formed session tokens make the client-side cache (lib/infra/store/redis/)
// read keys Redis does not have. Those answers are never kept, so however many there are, they
// cannot push a real session out of memory: it is still answered without asking Redis. (Each one
// was kept, and 21,000 of them evicted every real session: a slow path for everyone.) The clock
// stands still, so the connection stays fresh throughout and only eviction could send the read to
// Redis.
jest.setTimeout(60_000)

const own = ownRedisForFile()

it('still answers a real session from memory after 21,000 reads of sessions that do not exist', async () => {
  const client = own().client()
  const prefix = 'tracking-garbage:sess:'
  const tracked = await trackedReads(client, [prefix], manualClock().now)
  const real = `${prefix}${sessionId('real')}`
  await client.set(real, JSON.stringify({ sub: 'user:ada' }))
  await sleep(100) // the SET's own invalidation has arrived
  expect(await readOf(tracked, real)).toMatchObject({ fromRedis: true })
  expect(await readOf(tracked, real)).toMatchObject({ fromRedis: false })

  for (let batch = 0; batch < 21; batch++) {
    const made = Array.from({ length: 1000 }, () => `${prefix}${sessionId(randomBytes(32).toString('base64url'))}`)
    const answers = await Promise.all(made.map((key) => readOf(tracked, key)))
    expect(answers.every(({ value, fromRedis }) => value === null && fromRedis)).toBe(true)
  }
  const gets = async () => Number(/cmdstat_get:calls=(\d+)/.exec(String(await client.info('commandstats')))![1])
  const before = await gets()
  expect(await readOf(tracked, real)).toEqual({ value: JSON.stringify({ sub: 'user:ada' }), fromRedis: false })
  expect(await gets()).toBe(before)
  // A made-up token asked for again is asked of Redis again: nothing was kept for it.
  const again = `${prefix}${sessionId('made up')}`
  expect(await readOf(tracked, again)).toEqual({ value: null, fromRedis: true })
  expect(await readOf(tracked, again)).toEqual({ value: null, fromRedis: true })
})
