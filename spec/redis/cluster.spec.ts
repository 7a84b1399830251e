import type { Cluster } from 'ioredis'
import { redisCluster, type TestCluster } from '../support/redis'
import { describeStoreContract } from '../support/store-contract'

// Three redis-server nodes in cluster mode and ioredis's Cluster client: the whole database-session
// contract (sessions, e-mail links, rate limits, the user index and revocations), unchanged. Each
// command the package sends touches one key, so no command spans hash slots.
let cluster: TestCluster
let client: Cluster

beforeAll(async () => {
  cluster = await redisCluster()
  client = cluster.client()
  await client.ping()
}, 60_000)

afterAll(() => cluster?.close())

describeStoreContract('Redis Cluster (connect-redis over ioredis Cluster)', async () => ({
  options: { redis: client, redisKeyPrefix: 'cluster-spec:', session: { strategy: 'database' } },
  stored: async (sid) => {
    const value = await client.get(`cluster-spec:sess:${sid}`)
    return value === null ? null : (JSON.parse(value) as unknown)
  },
}))
