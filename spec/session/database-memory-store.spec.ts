import session from 'express-session'
import { callStore } from '../../lib/store/express-session-store'
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
