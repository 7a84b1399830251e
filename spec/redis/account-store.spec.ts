/**
 * The account stores hold the AccountStore contract (the suite `express-auth-service/testing`
 * ships): this process's memory, and Redis, one server and a Cluster, on ioredis 5 and 6 (this file
 * runs in both projects).
 */
import { memoryAccounts } from '../../lib/features/accounts/memory-store'
import { redisAccounts } from '../../lib/features/accounts/redis-store'
import type { Cluster } from 'ioredis'
import { describeAccountStoreContract } from '../../lib/testing'
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
