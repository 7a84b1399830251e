import { keyRing } from '../../lib/infra/crypto/keys'
import { storeHealth } from '../../lib/infra/store/health'
import { redisRunner } from '../../lib/infra/store/redis'
import { redisVault, type TokenVault } from '../../lib/features/provider-tokens/redis-vault'
import { redisRefresher, type Exchanged } from '../../lib/features/provider-tokens/refresh-redis'
import { fingerprint, sealTokens, type TokenSet } from '../../lib/features/provider-tokens/token-set'
import { sharedRedis, untilReady, type SharedRedis } from '../support/redis'

// The single refresh on a real Redis, at the moments a spec through the app cannot reach: the set
// replaced between a caller's read and its lock, a refresh refused for good, a refresh that failed
// for now. Each counts the provider's refresh grants (`exchange`).
let redis: SharedRedis
let prefix: string
let vault: TokenVault
let client: ReturnType<SharedRedis['client']>
const ring = keyRing(['a-secret-of-at-least-32-characters-long'], 'provider-tokens')
const set = (n: number): TokenSet => ({ provider: 'idp', accessToken: `at-${n}`, refreshToken: `rt-${n}` })

beforeAll(async () => {
  redis = await sharedRedis()
  prefix = redis.prefix('token-races')
  client = redis.client()
  await untilReady(client)
  vault = redisVault(
    redisRunner(
      client,
      prefix,
      2000,
      storeHealth(() => undefined, 'Redis'),
    ),
  )
})

afterAll(async () => {
  await redis?.deleteKeys(prefix)
  await redis?.close()
})

async function kept(n: number): Promise<string> {
  return vault.keep('user', sealTokens(ring, set(n)), fingerprint(set(n)), Math.floor(Date.now() / 1000) + 60)
}

function refresher(answers: Exchanged[], over: Partial<TokenVault> = {}, lockMs = 3000) {
  const asked: TokenSet[] = []
  const exchange = async (from: TokenSet) => {
    asked.push(from)
    return answers.shift() ?? { ok: false as const, final: false, reason: 'no answer left' }
  }
  return { asked, refresh: redisRefresher({ vault: { ...vault, ...over }, ring, lockMs, exchange }) }
}

it('a set replaced between the read and the lock is answered as it is: its refresh token is not spent', async () => {
  const ref = await kept(1)
  const other = refresher([{ ok: true, set: set(2) }])
  // Another instance refreshes just before this one takes the lock.
  const late = refresher([{ ok: true, set: set(3) }], {
    lock: async (at, ms) => {
      await other.refresh.successor(at, fingerprint(set(1)))
      return vault.lock(at, ms)
    },
  })
  const answer = await late.refresh.successor(ref, fingerprint(set(1)))
  expect(answer?.set.accessToken).toBe('at-2')
  expect(late.asked).toEqual([])
  expect(other.asked.map((from) => from.refreshToken)).toEqual(['rt-1'])
  expect((await vault.read(ref, true))?.fp).toBe(fingerprint(set(2)))
})

it('refused for good: the set is marked failed, not a failure for now', async () => {
  const ref = await kept(4)
  const { refresh } = refresher([{ ok: false, final: true, reason: 'invalid_grant' }])
  expect(await refresh.successor(ref, fingerprint(set(4)))).toMatchObject({ failed: true })
  expect((await vault.read(ref, true))?.failed).toBe(true)
})

it('failed for now: a caller right after is refused at once, without asking the provider again', async () => {
  const ref = await kept(5)
  const { refresh, asked } = refresher([
    { ok: false, final: false, reason: 'timeout' },
    { ok: true, set: set(6) },
  ])
  await expect(refresh.successor(ref, fingerprint(set(5)))).rejects.toMatchObject({ code: 'ServiceUnavailable' })
  await expect(refresh.successor(ref, fingerprint(set(5)))).rejects.toMatchObject({ code: 'ServiceUnavailable' })
  expect(asked).toHaveLength(1)
  expect((await vault.read(ref, true))?.fp).toBe(fingerprint(set(5)))
})

it('two sessions refreshed at once in one process each get their own successor', async () => {
  const [first, second] = [await kept(7), await kept(8)]
  const { refresh, asked } = refresher([
    { ok: true, set: set(9) },
    { ok: true, set: set(10) },
  ])
  const answers = await Promise.all([
    refresh.successor(first, fingerprint(set(7))),
    refresh.successor(second, fingerprint(set(8))),
  ])
  expect(asked.map((from) => from.refreshToken).sort()).toEqual(['rt-7', 'rt-8'])
  expect(answers.map((answer) => answer?.set.accessToken).sort()).toEqual(['at-10', 'at-9'])
  expect(new Set([(await vault.read(first, true))?.fp, (await vault.read(second, true))?.fp])).toEqual(
    new Set([fingerprint(set(9)), fingerprint(set(10))]),
  )
})

it('failed for now: once the mark has run out, the next call asks the provider again and gets the successor', async () => {
  const ref = await kept(11)
  const { refresh, asked } = refresher([
    { ok: false, final: false, reason: 'timeout' },
    { ok: true, set: set(12) },
  ])
  await expect(refresh.successor(ref, fingerprint(set(11)))).rejects.toMatchObject({ code: 'ServiceUnavailable' })
  // The mark lasts 2 s (refresh-redis.ts).
  await new Promise((resolve) => setTimeout(resolve, 2200))
  expect((await refresh.successor(ref, fingerprint(set(11))))?.set.accessToken).toBe('at-12')
  expect(asked.map((from) => from.refreshToken)).toEqual(['rt-11', 'rt-11'])
})

it('the decision is read from Redis, not from a cache that lags: the set another instance rotated is answered, its spent token not sent again', async () => {
  const ref = await kept(13)
  // What this instance's client-side cache holds: the set before the rotation below.
  const held = await vault.read(ref, true)
  const other = refresher([{ ok: true, set: set(14) }])
  expect((await other.refresh.successor(ref, fingerprint(set(13))))?.set.accessToken).toBe('at-14')
  // Its invalidation has not reached this instance yet (a tracking connection lagging behind).
  const lagging = refresher([{ ok: true, set: set(15) }], {
    read: async (at, fresh) => (fresh ? vault.read(at, true) : held),
  })
  const answer = await lagging.refresh.successor(ref, fingerprint(set(13)))
  expect(answer?.set.accessToken).toBe('at-14')
  expect(lagging.asked).toEqual([])
  expect((await vault.read(ref, true))?.fp).toBe(fingerprint(set(14)))
  // Every wait of the refresh stopped: nothing is left in the vault's map of waits.
  expect(vault.watching()).toBe(0)
})

it('a lock other instances keep re-taking: the waiter gives up at its deadline (2 × lockMs + 1 s), not at once, not never', async () => {
  const ref = await kept(16)
  const lockKey = `${prefix}tok:{${ref}}:lock`
  // Instance after instance takes the lock over and dies with it: it is never free for long.
  const retake = () => client.set(lockKey, 'another-instance', 'PX', 1500)
  await retake()
  const retaking = setInterval(() => void retake().catch(() => undefined), 100)
  try {
    const { refresh, asked } = refresher([{ ok: true, set: set(17) }], {}, 500)
    const started = Date.now()
    await expect(refresh.successor(ref, fingerprint(set(16)))).rejects.toMatchObject({
      code: 'ServiceUnavailable',
      message: expect.stringContaining('did not finish in time'),
    })
    const took = Date.now() - started
    expect(took).toBeGreaterThanOrEqual(1900)
    expect(took).toBeLessThan(2600)
    expect(asked).toEqual([])
  } finally {
    clearInterval(retaking)
  }
  expect(vault.watching()).toBe(0)
  expect((await vault.read(ref, true))?.fp).toBe(fingerprint(set(16)))
})

it('a holder that died with the lock: the waiter takes it over when it ends, long before its own deadline', async () => {
  const ref = await kept(18)
  // Taken by an instance that died before it could write or let go: no publish will come.
  await client.set(`${prefix}tok:{${ref}}:lock`, 'a-dead-instance', 'PX', 300)
  const { refresh, asked } = refresher([{ ok: true, set: set(19) }])
  const started = Date.now()
  expect((await refresh.successor(ref, fingerprint(set(18))))?.set.accessToken).toBe('at-19')
  // The lock's 300 ms, not the waiter's 7 s (2 × 3 s + 1 s).
  expect(Date.now() - started).toBeLessThan(1500)
  expect(asked.map((from) => from.refreshToken)).toEqual(['rt-18'])
})
