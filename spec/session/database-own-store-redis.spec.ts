import session from 'express-session'
import type { Redis } from 'ioredis'
import { callStore } from '../../lib/store/express-session-store'
import { sharedRedis, type SharedRedis } from '../support/redis'
import { describeStoreContract } from '../support/store-contract'

// A store of the app's own with `redis` set as well: the records in the app's store, each user's
// index of sessions and the revocation times in Redis (one Redis of the specs', under a key prefix
// of this spec's own), shared by every instance.
let redis: SharedRedis
let client: Redis
let prefix: string

beforeAll(async () => {
  redis = await sharedRedis()
  client = redis.client()
  await client.ping()
  prefix = redis.prefix('own-store')
})

afterAll(async () => {
  await redis.deleteKeys(prefix)
  await redis.close()
})

describeStoreContract("express-session's MemoryStore, with redis for the index", async () => {
  const store = new session.MemoryStore()
  return {
    options: { redis: client, redisKeyPrefix: prefix, session: { strategy: 'database', store } },
    stored: (sid) => callStore((done) => store.get(sid, done)),
  }
})
