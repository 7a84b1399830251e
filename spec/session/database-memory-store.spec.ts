import session from 'express-session'
import { callStore } from '../../lib/infra/store/express-session-store'
import { describeSessionStoreContract } from '../../lib/testing'
import { describeStoreContract } from '../support/store-contract'

// express-session's own MemoryStore stands for every store of the ecosystem: the package uses only
// get, set and destroy, with their callbacks.
describeStoreContract("express-session's MemoryStore", async () => {
  const store = new session.MemoryStore()
  return {
    options: { session: { strategy: 'database', store } },
    stored: (sid) => callStore((done) => store.get(sid, done)),
  }
})

// The store-level suite the package ships (`express-auth-service/testing`), as a store's author runs it.
describeSessionStoreContract("express-session's MemoryStore", () => new session.MemoryStore(), {
  describe,
  it,
  beforeEach,
})
