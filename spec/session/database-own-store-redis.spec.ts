import session from 'express-session'
import { callStore } from '../../lib/infra/store/express-session-store'
import { sharedRedisForFile } from '../support/redis'
import { describeStoreContract } from '../support/store-contract'

// A store of the app's own with `redis` set as well: the records in the app's store, each user's
// index of sessions and the revocation times in Redis (one Redis of the specs', under a key prefix
// of this spec's own), shared by every instance.
const db = sharedRedisForFile('own-store')

describeStoreContract("express-session's MemoryStore, with redis for the index", async () => {
  const store = new session.MemoryStore()
  return {
    options: { redis: db.client, redisKeyPrefix: db.prefix, session: { strategy: 'database', store } },
    stored: (sid) => callStore((done) => store.get(sid, done)),
  }
})
