/**
 * The Redis passkey store holds the PasskeyStore contract (the suite `express-auth-service/testing`
 * ships), each test under a prefix of its own; its challenges are spent once; and a value that is
 * not ours under its prefix is no passkey.
 */
import { redisRunner } from '../../lib/infra/store/redis'
import { storeHealth } from '../../lib/infra/store/health'
import { redisChallengeStore, redisPasskeyStore } from '../../lib/features/passkey/redis-store'
import { describePasskeyStoreContract } from '../../lib/testing'
import { sharedRedis, type SharedRedis } from '../support/redis'

let redis: SharedRedis
const prefixes: string[] = []

beforeAll(async () => {
  redis = await sharedRedis()
})
afterAll(async () => {
  for (const prefix of prefixes) await redis.deleteKeys(prefix)
  await redis.close()
})

function runner() {
  const prefix = redis.prefix('passkey-store')
  prefixes.push(prefix)
  return redisRunner(
    redis.client(),
    prefix,
    5000,
    storeHealth(() => undefined, 'Redis'),
  )
}

describePasskeyStoreContract('the Redis store', () => redisPasskeyStore(runner()), { describe, it, beforeEach })

describe('the Redis passkey store', () => {
  it('spends a challenge once, even when taken at the same moment', async () => {
    const challenges = redisChallengeStore(runner())
    await challenges.put('k', 'v', 60_000)
    const taken = await Promise.all(Array.from({ length: 5 }, () => challenges.take('k')))
    expect(taken.filter((value) => value !== null)).toEqual(['v'])
  })

  it('reads a value that is not a passkey of ours as none', async () => {
    const run = runner()
    const store = redisPasskeyStore(run)
    await run.run((client) => client.set(run.key('pk', 'x'), '{"id":"x","counter":"7"}'))
    await expect(store.get('x')).resolves.toBeNull()
  })
})
