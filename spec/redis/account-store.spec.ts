/**
 * The account stores hold the AccountStore contract (the suite `express-auth-service/testing`
 * ships): this process's memory, and Redis, one server and a Cluster, on ioredis 5 and 6 (this file
 * runs in both projects).
 */
import { memoryAccounts } from '../../lib/features/accounts/memory-store'
import { redisAccounts } from '../../lib/features/accounts/redis-store'
import type { Cluster, Redis } from 'ioredis'
import { describeAccountStoreContract } from '../../lib/testing'
import type { AccountStore } from '../../lib/features/accounts/store'
import {
  factorMethods,
  identityOf,
  sampleAccount,
  sampleCodeHashes,
  sampleFactor,
  sampleHash,
  sampleUser,
} from '../../lib/testing/account-samples'
import { configError } from '../support/config-error'
import { redisCluster, sharedRedisForFile, type TestCluster } from '../support/redis'

describeAccountStoreContract('memoryAccounts()', () => memoryAccounts(), { describe, it, beforeEach })

const single = sharedRedisForFile('accounts')
describeAccountStoreContract(
  'redisAccounts() on one Redis',
  () => redisAccounts(single.client, { prefix: single.prefix }),
  {
    describe,
    it,
    beforeEach,
  },
)

describe('on a Redis Cluster', () => {
  let cluster: TestCluster
  let client: Cluster
  beforeAll(async () => {
    cluster = await redisCluster()
    client = cluster.client()
  }, 60_000)
  afterAll(async () => {
    await cluster?.close()
  })
  describeAccountStoreContract('redisAccounts() on a Cluster', () => redisAccounts(client), {
    describe,
    it,
    beforeEach,
  })
})

describe.each([
  ['memoryAccounts()', () => memoryAccounts()],
  ['redisAccounts()', () => redisAccounts(single.client, { prefix: single.prefix })],
])('%s for password()', (_, make: () => AccountStore) => {
  it('has setPasswordHash (the contract holds it to the password cases), and answers null for no hash', async () => {
    const store = make()
    expect(typeof store.setPasswordHash).toBe('function')
    const user = sampleUser()
    const { passwordHash: _none, ...oauth } = sampleAccount(user.id)
    await store.createUser(user, oauth)
    expect(await store.findAccount(identityOf(oauth))).toHaveProperty('passwordHash', null)
    expect(await store.listAccounts(user.id)).toEqual([{ ...oauth, passwordHash: null }])
  })
})

describe.each([
  ['memoryAccounts()', () => memoryAccounts()],
  ['redisAccounts()', () => redisAccounts(single.client, { prefix: single.prefix })],
])('%s for mfa()', (_, make: () => AccountStore) => {
  it('has every factor method (the contract holds it to the factor cases)', () => {
    expect(factorMethods(make())).not.toBeNull()
  })
})

describe('redisAccounts() in Redis', () => {
  /** Every key under a prefix of the test's own. */
  async function keysUnder(prefix: string): Promise<string[]> {
    const found: string[] = []
    let cursor = '0'
    do {
      const [next, keys] = await single.client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500)
      cursor = next
      found.push(...keys)
    } while (cursor !== '0')
    return found
  }

  it('puts no user id, address or subject in a key', async () => {
    const prefix = single.redis.prefix('accounts-keys')
    const store = redisAccounts(single.client, { prefix })
    const user = sampleUser({ id: 'ada-lovelace', email: 'lovelace@example.com' })
    await store.createUser(user, sampleAccount(user.id, { subject: 'analytical-engine' }))
    const keys = await keysUnder(prefix)
    expect(keys.length).toBeGreaterThan(0)
    expect(keys.filter((key) => /lovelace|example|analytical/i.test(key.slice(prefix.length)))).toEqual([])
  })

  it("puts no factor id, secret or code in a key, and keeps every factor key in the user's slot", async () => {
    const prefix = single.redis.prefix('accounts-factor-keys')
    const store = redisAccounts(single.client, { prefix })
    const user = sampleUser()
    await store.createUser(user, sampleAccount(user.id))
    const totp = sampleFactor(user.id, { id: 'factor-phone', secret: 'sealed-totp-secret' })
    const recovery = sampleFactor(user.id, { id: 'factor-codes', type: 'recovery', secret: '' })
    expect(await store.addFactor!(totp)).toBe('added')
    expect(await store.addFactor!(recovery, ['code-hash-one', 'code-hash-two'])).toBe('added')
    expect(await store.spendTotpStep!(user.id, totp.id, 42)).toBe(true)
    const keys = await keysUnder(prefix)
    expect(keys.filter((key) => /factor-|sealed|code-hash|phone/i.test(key.slice(prefix.length)))).toEqual([])
    // The claims (`id:`, `em:`) aside, a user's keys are one hash tag, the factors' among them.
    const own = keys.filter((key) => key.includes('{'))
    expect(new Set(own.map((key) => key.slice(key.indexOf('{'), key.indexOf('}') + 1))).size).toBe(1)
    expect(own.map((key) => key.slice(key.lastIndexOf(':') + 1)).sort()).toEqual(['codes', 'factors', 'user', 'ways'])
  })

  it('leaves no key of a deleted user behind, their factors included', async () => {
    const prefix = single.redis.prefix('accounts-erased-factors')
    const store = redisAccounts(single.client, { prefix })
    const user = sampleUser()
    await store.createUser(user, sampleAccount(user.id))
    const totp = sampleFactor(user.id)
    await store.addFactor!(totp)
    await store.addFactor!(sampleFactor(user.id, { type: 'recovery', secret: '' }), sampleCodeHashes(10))
    await store.spendTotpStep!(user.id, totp.id, 42)
    await store.enableFactor!(user.id, totp.id)
    expect(await store.deleteUser(user.id)).toBe(true)
    expect(await keysUnder(prefix)).toEqual([])
  })

  it('leaves no key of a deleted user behind', async () => {
    const prefix = single.redis.prefix('accounts-erased')
    const store = redisAccounts(single.client, { prefix })
    const user = sampleUser()
    await store.createUser(user, sampleAccount(user.id))
    await store.linkAccount(sampleAccount(user.id))
    await store.touchAccount(user.id, (await store.listAccounts(user.id))[0]!.id, new Date())
    expect(await store.deleteUser(user.id)).toBe(true)
    expect(await keysUnder(prefix)).toEqual([])
  })

  it('leaves no key behind when a hash is set while the user is deleted', async () => {
    const prefix = single.redis.prefix('accounts-erased-set')
    const store = redisAccounts(single.client, { prefix })
    const users = Array.from({ length: 10 }, () => sampleUser())
    const accounts = users.map((user) => sampleAccount(user.id, { type: 'credentials', passwordHash: sampleHash() }))
    await Promise.all(users.map((user, index) => store.createUser(user, accounts[index]!)))
    await Promise.all(
      users.flatMap((user, index) => [
        store.setPasswordHash!(user.id, accounts[index]!.id, sampleHash()),
        store.deleteUser(user.id),
      ]),
    )
    expect(await keysUnder(prefix)).toEqual([])
  })

  it('reads an account written before passwords as one without a hash, and one whose hash is not text as nothing', async () => {
    const prefix = single.redis.prefix('accounts-old')
    const store = redisAccounts(single.client, { prefix })
    const user = sampleUser()
    const account = sampleAccount(user.id)
    await store.createUser(user, account)
    const [ways] = (await keysUnder(prefix)).filter((key) => key.endsWith(':ways'))
    const record = JSON.parse((await single.client.hget(ways!, account.id))!) as Record<string, unknown>
    delete record.passwordHash
    await single.client.hset(ways!, account.id, JSON.stringify(record))
    expect(await store.findAccount(identityOf(account))).toEqual(account)
    expect(await store.setPasswordHash!(user.id, account.id, 'h')).toBe(true)
    expect(await store.findAccount(identityOf(account))).toEqual({ ...account, passwordHash: 'h' })
    await single.client.hset(ways!, account.id, JSON.stringify({ ...record, passwordHash: 7 }))
    expect(await store.listAccounts(user.id)).toEqual([])
    expect(await store.setPasswordHash!(user.id, account.id, 'h')).toBe(false)
  })

  it('reads values that are not its own as nothing', async () => {
    const prefix = single.redis.prefix('accounts-foreign')
    const store = redisAccounts(single.client, { prefix })
    const user = sampleUser()
    const account = sampleAccount(user.id)
    await store.createUser(user, account)
    for (const key of await keysUnder(prefix)) {
      if ((await single.client.type(key)) === 'hash') await single.client.hset(key, account.id, '{"id":7}')
      else await single.client.set(key, '["not", "ours"]')
    }
    expect(await store.getUser(user.id)).toBeNull()
    expect(await store.findAccount(identityOf(account))).toBeNull()
    expect(await store.findUserByVerifiedEmail(user.email!)).toBeNull()
    expect(await store.listAccounts(user.id)).toEqual([])
  })

  it('refuses what is not an ioredis client, a bad prefix and an unknown option, naming the fix', () => {
    expect(configError(() => redisAccounts({} as Redis))).toMatch(/ioredis client: `new Redis\(url\)`/)
    expect(configError(() => redisAccounts(single.client, { prefix: 'a b' }))).toMatch(/`prefix` must be 1 to 64/)
    expect(configError(() => redisAccounts(single.client, { prefx: 'a:' } as never))).toMatch(
      /unknown option `prefx`; its one option is `prefix`/,
    )
  })
})
