import { databaseStore } from '../../lib/core/session/database-store'
import type { ExpressSessionStore } from '../../lib/infra/store/express-session-store'
import { memoryState } from '../../lib/infra/store/memory'

/**
 * A store that expires entries the way the `memorystore` package does (getTTL: `sess.cookie.maxAge`
 * if a number, else 3,600,000 ms), on a clock the spec moves. The package writes plain objects (no
 * Cookie class with a `maxAge` getter), so it must write `cookie.maxAge` itself: without it every
 * entry got one hour, and the listing written at sign-in was gone an hour later.
 */
function maxAgeStore() {
  let clock = 0
  const entries = new Map<string, { value: unknown; until: number }>()
  const store: ExpressSessionStore = {
    get: (sid, done) => {
      const entry = entries.get(sid)
      done(null, entry && entry.until > clock ? entry.value : undefined)
    },
    set: (sid, value, done) => {
      const maxAge = (value as { cookie?: { maxAge?: unknown } }).cookie?.maxAge
      entries.set(sid, { value, until: clock + (typeof maxAge === 'number' ? maxAge : 3_600_000) })
      done?.(null)
    },
    destroy: (sid, done) => {
      entries.delete(sid)
      done?.(null)
    },
  }
  return { store, advance: (ms: number) => (clock += ms) }
}

describe('a database session in a store that takes its TTL from cookie.maxAge (memorystore)', () => {
  it('lives past an hour while renewed: the record and its listing are kept until the session ends', async () => {
    const { store, advance } = maxAgeStore()
    const sessions = databaseStore({
      store,
      index: memoryState(30 * 86400).sessionIndex,
      indexed: false,
      call: (work) => work(),
      maxLifetime: 30 * 86400,
    })
    const now = Math.floor(Date.now() / 1000)
    const record = {
      userId: 'email:ada@example.com',
      user: { email: 'ada@example.com' },
      createdAt: now,
      issuedAt: now,
      expiresAt: now + 30 * 86400,
    }
    const token = await sessions.write(record, null)
    advance(30 * 60_000)
    expect(await sessions.read(token, now, 30 * 86400)).not.toBeNull()
    await sessions.write({ ...record, issuedAt: now + 1800 }, token) // renewal: rewrites the record only
    advance(31 * 60_000)
    expect(await sessions.read(token, now, 30 * 86400)).not.toBeNull()
    advance(5 * 3_600_000)
    expect(await sessions.read(token, now, 30 * 86400)).not.toBeNull()
  })
})
