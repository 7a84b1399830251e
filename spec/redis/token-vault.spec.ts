import { redisRunner } from '../../lib/infra/store/redis'
import { storeHealth } from '../../lib/infra/store/health'
import { redisVault, type TokenVault } from '../../lib/features/provider-tokens/redis-vault'
import { sharedRedis, untilReady, type SharedRedis } from '../support/redis'

// The Redis side of the single refresh, as two instances see it: the lock is one holder's, the
// compare-and-write writes only over the set it names, and a waiting instance is woken by the
// holder's write (published), not by its own deadline.
let redis: SharedRedis
let prefix: string
let a: TokenVault
let b: TokenVault

beforeAll(async () => {
  redis = await sharedRedis()
  prefix = redis.prefix('token-vault')
  const vault = async () => {
    const client = redis.client()
    await untilReady(client)
    return redisVault(
      redisRunner(
        client,
        prefix,
        2000,
        storeHealth(() => undefined, 'Redis'),
      ),
    )
  }
  ;[a, b] = await Promise.all([vault(), vault()])
})

afterAll(async () => {
  await redis?.deleteKeys(prefix)
  await redis?.close()
})

it('one lock holder; the write names the set it replaces; the waiter is woken by the write', async () => {
  const ref = await a.keep('user-1', 'sealed-1', 'fp-1', Math.floor(Date.now() / 1000) + 60)
  const owner = await a.lock(ref, 30_000)
  expect(owner).toEqual(expect.any(String))
  expect(await b.lock(ref, 30_000)).toBeNull()
  expect(await b.lockState(ref)).toEqual({ left: expect.any(Number), failed: false, uncertain: false })
  expect((await b.lockState(ref)).left).toBeGreaterThan(20_000)

  await b.listen()
  const watch = b.watch(ref)
  let woken = false
  const waited = watch.wait(30_000).then(() => (woken = true))
  expect(await a.replace(ref, 'fp-other', 'sealed-x', 'fp-x', owner!)).toBe(false)
  expect(await b.read(ref)).toEqual({ sealed: 'sealed-1', fp: 'fp-1', failed: false })
  expect(woken).toBe(false)
  expect(await a.replace(ref, 'fp-1', 'sealed-2', 'fp-2', owner!)).toBe(true)
  // Well before the 30 s the wait would otherwise last: the write was heard.
  await Promise.race([waited, new Promise((resolve) => setTimeout(resolve, 5000))])
  watch.stop()
  expect(woken).toBe(true)
  expect(await b.read(ref)).toEqual({ sealed: 'sealed-2', fp: 'fp-2', failed: false })
  expect(await b.lockState(ref)).toEqual({ left: 0, failed: false, uncertain: false })
})

it('a refresh that failed for now marks the lock for a moment and wakes the waiters', async () => {
  const ref = await a.keep('user-3', 'sealed-3', 'fp-3', Math.floor(Date.now() / 1000) + 60)
  const owner = (await a.lock(ref, 30_000))!
  await b.listen()
  const watch = b.watch(ref)
  let woken = false
  const waited = watch.wait(30_000).then(() => (woken = true))
  await a.failForNow(ref, 'not-the-owner', 1000)
  expect((await b.lockState(ref)).failed).toBe(false)
  await a.failForNow(ref, owner, 1000)
  await Promise.race([waited, new Promise((resolve) => setTimeout(resolve, 5000))])
  watch.stop()
  expect(woken).toBe(true)
  expect(await b.lock(ref, 30_000)).toBeNull()
  expect(await b.lockState(ref)).toEqual({ left: expect.any(Number), failed: true, uncertain: false })
  expect((await b.lockState(ref)).left).toBeLessThanOrEqual(1000)
})

it("a renewal moves the lock's end for its owner only; a refresh sent without answer marks the lock `uncertain`", async () => {
  const ref = await a.keep('user-4', 'sealed-4', 'fp-4', Math.floor(Date.now() / 1000) + 60)
  const owner = (await a.lock(ref, 1000))!
  expect(await b.renew(ref, 'not-the-owner', 30_000)).toBe(false)
  expect((await b.lockState(ref)).left).toBeLessThanOrEqual(1000)
  expect(await a.renew(ref, owner, 30_000)).toBe(true)
  expect((await b.lockState(ref)).left).toBeGreaterThan(20_000)
  await a.failForNow(ref, owner, 30_000, 'uncertain')
  expect(await b.lockState(ref)).toEqual({ left: expect.any(Number), failed: true, uncertain: true })
  // The mark is no one's lock: a renewal by the former owner does not turn it back into one.
  expect(await a.renew(ref, owner, 30_000)).toBe(false)
  expect(await b.lock(ref, 1000)).toBeNull()
})

it('a failure for good is written only over the set it names; forgetting a user spares the kept session', async () => {
  const until = Math.floor(Date.now() / 1000) + 60
  const kept = await a.keep('user-2', 'sealed-k', 'fp-k', until)
  const gone = await a.keep('user-2', 'sealed-g', 'fp-g', until)
  const owner = (await a.lock(gone, 10_000))!
  expect(await a.fail(gone, 'fp-other', owner)).toBe(false)
  expect(await a.fail(gone, 'fp-g', owner)).toBe(true)
  expect(await b.read(gone)).toEqual({ sealed: 'sealed-g', fp: 'fp-g', failed: true })
  await b.forgetUser('user-2', kept)
  expect(await a.read(gone)).toBeNull()
  expect(await a.read(kept)).toEqual({ sealed: 'sealed-k', fp: 'fp-k', failed: false })
  expect(await a.read('not a ref')).toBeNull()
})

it('a holder whose lock ran out during a stall writes nothing over the newer set, nor frees the next lock', async () => {
  const ref = await a.keep('user-4', 'sealed-1', 'fp-1', Math.floor(Date.now() / 1000) + 60)
  const stalled = (await a.lock(ref, 200))!
  // A stall (a long GC pause, a slow provider) past the lock's deadline: another instance takes over.
  await new Promise((resolve) => setTimeout(resolve, 400))
  const next = await b.lock(ref, 30_000)
  expect(next).toEqual(expect.any(String))
  expect(await b.replace(ref, 'fp-1', 'sealed-2', 'fp-2', next!)).toBe(true)
  // The successor is being refreshed in turn when the stalled holder's answer arrives.
  const third = (await b.lock(ref, 30_000))!
  expect(third).toEqual(expect.any(String))

  expect(await a.replace(ref, 'fp-1', 'sealed-stale', 'fp-stale', stalled)).toBe(false)
  expect(await a.fail(ref, 'fp-1', stalled)).toBe(false)
  expect(await b.read(ref)).toEqual({ sealed: 'sealed-2', fp: 'fp-2', failed: false })
  expect(await a.lock(ref, 1000)).toBeNull()
  expect((await a.lockState(ref)).left).toBeGreaterThan(20_000)
  await b.release(ref, third)
})

it('forgetting a user ends every set of theirs, however many; a user with none to end is no error', async () => {
  const until = Math.floor(Date.now() / 1000) + 60
  const refs = [await a.keep('user-5', 's-1', 'f-1', until), await a.keep('user-5', 's-2', 'f-2', until)]
  refs.push(await a.keep('user-5', 's-3', 'f-3', until), await a.keep('user-5', 's-4', 'f-4', until))
  await b.forgetUser('user-5', refs[0]!)
  expect(await Promise.all(refs.map((ref) => a.read(ref)))).toEqual([
    { sealed: 's-1', fp: 'f-1', failed: false },
    null,
    null,
    null,
  ])
  await expect(b.forgetUser('user-5', refs[0]!)).resolves.toBeUndefined()
  await expect(b.forgetUser('user-nobody', null)).resolves.toBeUndefined()
})

it("moves a set's expiry with its session's (a renewal), so it outlives the first one", async () => {
  const now = Math.floor(Date.now() / 1000)
  const renewed = await a.keep('user-touch', 'sealed-r', 'fp-r', now + 2)
  const left = await a.keep('user-touch', 'sealed-l', 'fp-l', now + 2)
  await a.touch(renewed, now + 60)
  await new Promise((resolve) => setTimeout(resolve, 3100))
  expect(await b.read(renewed, true)).toEqual({ sealed: 'sealed-r', fp: 'fp-r', failed: false })
  expect(await b.read(left, true)).toBeNull()
})
