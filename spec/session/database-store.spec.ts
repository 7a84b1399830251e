import { randomBytes } from 'node:crypto'
import session from 'express-session'
import request from 'supertest'
import { databaseStore } from '../../lib/core/session/database-store'
import { callStore, type ExpressSessionStore } from '../../lib/infra/store/express-session-store'
import { memoryState } from '../../lib/infra/store/memory'
import { MAX_SESSIONS_PER_USER, type SessionIndex } from '../../lib/infra/store/types'
import { makeApp } from '../support/app'
import { setCookies } from '../support/cookies'
import { sidOf } from '../support/store-contract'

const NOW = Math.floor(Date.now() / 1000)
const RECORD = {
  userId: 'email:ada@example.com',
  user: { email: 'ada@example.com' },
  createdAt: NOW,
  issuedAt: NOW,
  expiresAt: NOW + 3600,
}

/** A store whose answers the spec decides, counting the calls it gets. */
function scriptedStore(answer: (callback: (error: unknown, value?: unknown) => void) => void) {
  const calls: string[] = []
  const store: ExpressSessionStore = {
    get: (sid, callback) => {
      calls.push(`get ${sid}`)
      answer(callback)
    },
    set: (sid, _value, callback) => {
      calls.push(`set ${sid}`)
      answer((error) => callback?.(error))
    },
    destroy: (sid, callback) => {
      calls.push(`destroy ${sid}`)
      answer((error) => callback?.(error))
    },
  }
  return { store, calls }
}

const token = () => randomBytes(32).toString('base64url')

describe('the database record store', () => {
  it('deletes a written record again when it cannot be listed in the user index, and refuses the session', async () => {
    const store = new session.MemoryStore()
    const index: SessionIndex = {
      add: () => Promise.reject(new Error('index down')),
      has: async () => true,
      members: async () => [],
      remove: async () => undefined,
    }
    const sessions = databaseStore({ store, index, indexed: true, call: (work) => work(), maxLifetime: 7200 })
    await expect(sessions.write(RECORD, null)).rejects.toThrow('index down')
    const all = await callStore<Record<string, unknown> | null>((done) => store.all(done))
    expect(Object.keys(all ?? {})).toEqual([])
  })

  it('keeps a renewed record under the token it already had, without listing it again', async () => {
    const store = new session.MemoryStore()
    const added: string[] = []
    const index: SessionIndex = {
      add: async (_user, sid) => {
        added.push(sid)
        return []
      },
      has: async () => true,
      members: async () => [],
      remove: async () => undefined,
    }
    const sessions = databaseStore({ store, index, indexed: true, call: (work) => work(), maxLifetime: 7200 })
    const first = await sessions.write(RECORD, null)
    expect(added).toEqual([sidOf(first)])
    expect(await sessions.write({ ...RECORD, expiresAt: NOW + 7200 }, first)).toBe(first)
    expect(added).toHaveLength(1)
    expect((await sessions.read(first, NOW, 7200))?.record).toMatchObject({ expiresAt: NOW + 7200 })
  })
})

describe('a re-authentication (rekey)', () => {
  it('moves the session to a new token: the old one opens nothing, the old id still ends it, the handle source is kept', async () => {
    const store = new session.MemoryStore()
    const sessions = databaseStore({
      store,
      index: memoryState(7200).sessionIndex,
      indexed: true,
      call: (work) => work(),
      maxLifetime: 7200,
    })
    const first = await sessions.write(RECORD, null, { userAgent: 'Firefox', address: '192.0.2.1', provider: 'email' })
    const moved = (await sessions.rekey!({ ...RECORD, authTime: NOW + 5 }, first))!
    expect(moved.token).not.toBe(first)
    expect(moved.record.handleSid).toBe(sidOf(first))
    expect(await sessions.read(first, NOW, 7200)).toBeNull()
    expect((await sessions.read(moved.token, NOW, 7200))?.record).toMatchObject({ authTime: NOW + 5 })
    const listing = sessions.listing!
    const listed = await listing.list(RECORD.userId, NOW, 7200)
    expect(listed.map(({ sid, device }) => ({ sid, userAgent: device?.userAgent }))).toEqual([
      { sid: sidOf(moved.token), userAgent: 'Firefox' },
    ])
    // Moved again: named by the id it signed in with (a provider's back-channel logout), it still ends.
    const again = (await sessions.rekey!(moved.record, moved.token))!
    expect(again.record.handleSid).toBe(sidOf(first))
    expect(await listing.end(RECORD.userId, sidOf(first))).toBe(true)
    expect(await sessions.read(again.token, NOW, 7200)).toBeNull()
    expect(await listing.end(RECORD.userId, sidOf(first))).toBe(false)
  })
})

describe('the database record store over a shared index', () => {
  /** The store as auth() builds it with Redis: every session must be listed to be valid. */
  function indexedStore() {
    const store = new session.MemoryStore()
    const state = memoryState(7200)
    const sessions = databaseStore({
      store,
      index: state.sessionIndex,
      indexed: true,
      call: (work) => work(),
      maxLifetime: 7200,
    })
    return { store, sessions }
  }

  it('refuses (and deletes) a record that a request racing the sign-out wrote back', async () => {
    const { store, sessions } = indexedStore()
    const token = await sessions.write(RECORD, null)
    const read = (await sessions.read(token, NOW, 7200))?.record ?? null
    await sessions.remove(token, read)
    // The racing request: it had read the session before the sign-out, and renews it after.
    await sessions.write({ ...RECORD, issuedAt: NOW + 60 }, token)
    expect(await sessions.read(token, NOW, 7200)).toBeNull()
    expect(await callStore((done) => store.get(sidOf(token), done))).toBeFalsy()
  })

  it('keeps at most 50 sessions a user: a new sign-in beyond them ends the oldest', async () => {
    const { store, sessions } = indexedStore()
    const tokens: string[] = []
    for (let i = 0; i <= MAX_SESSIONS_PER_USER; i++) tokens.push(await sessions.write(RECORD, null))
    expect(MAX_SESSIONS_PER_USER).toBe(50)
    expect(await sessions.read(tokens[0]!, NOW, 7200)).toBeNull()
    expect(await callStore((done) => store.get(sidOf(tokens[0]!), done))).toBeFalsy()
    for (const token of tokens.slice(1)) expect(await sessions.read(token, NOW, 7200)).not.toBeNull()
  })
})

describe("the database record store over an app's own store, without a shared index", () => {
  /** The store as auth() builds it with `session.store` and no `redis`: one per instance, over one store. */
  function instanceOver(store: session.MemoryStore) {
    return databaseStore({
      store,
      index: memoryState(7200).sessionIndex,
      indexed: false,
      call: (work) => work(),
      maxLifetime: 7200,
    })
  }
  const stored = (store: session.MemoryStore, key: string) => callStore((done) => store.get(key, done))

  it('lists each session beside its record, until its sign-in plus maxLifetime, and refuses one no longer listed', async () => {
    const store = new session.MemoryStore()
    const sessions = instanceOver(store)
    const token = await sessions.write(RECORD, null)
    expect(await stored(store, `listed.${sidOf(token)}`)).toEqual({
      cookie: { expires: new Date((NOW + 7200) * 1000).toISOString(), maxAge: expect.any(Number) },
      listed: true,
    })
    await callStore((done) => store.destroy(`listed.${sidOf(token)}`, done))
    expect(await sessions.read(token, NOW, 7200)).toBeNull()
    // The unlisted record was deleted on the way.
    expect(await stored(store, sidOf(token))).toBeFalsy()
  })

  it('opens a session made by another instance over the same store, and ends it there for both', async () => {
    const store = new session.MemoryStore()
    const [first, second] = [instanceOver(store), instanceOver(store)]
    const token = await first.write(RECORD, null)
    const read = (await second.read(token, NOW, 7200))?.record ?? null
    expect(read).toMatchObject({ userId: RECORD.userId })
    await second.remove(token, read)
    expect(await first.read(token, NOW, 7200)).toBeNull()
  })

  it('deletes again a record that a renewal wrote back after the sign-out, and never lists it again', async () => {
    const store = new session.MemoryStore()
    const sessions = instanceOver(store)
    const token = await sessions.write(RECORD, null)
    const read = (await sessions.read(token, NOW, 7200))?.record ?? null
    await sessions.remove(token, read)
    // The racing request: it had read the session before the sign-out, and renews it after.
    expect(await sessions.write({ ...RECORD, issuedAt: NOW + 60 }, token)).toBe(token)
    const all = await callStore<Record<string, unknown> | null>((done) => store.all(done))
    expect(Object.keys(all ?? {})).toEqual([])
    expect(await sessions.read(token, NOW, 7200)).toBeNull()
  })

  it('ends the oldest session beyond 50 a user: its listing and its record are deleted', async () => {
    const store = new session.MemoryStore()
    const sessions = instanceOver(store)
    const tokens: string[] = []
    for (let i = 0; i <= MAX_SESSIONS_PER_USER; i++) tokens.push(await sessions.write(RECORD, null))
    const first = sidOf(tokens[0]!)
    expect([await stored(store, `listed.${first}`), await stored(store, first)]).toEqual([undefined, undefined])
    expect(await sessions.read(tokens[0]!, NOW, 7200)).toBeNull()
    expect(await sessions.read(tokens[1]!, NOW, 7200)).not.toBeNull()
  })

  it("unlists a session that did not open (a new sign-in ending the browser's old one) by the user its record names", async () => {
    const store = new session.MemoryStore()
    const removed: Array<[string, readonly string[]]> = []
    const index: SessionIndex = {
      add: async () => [],
      has: async () => true,
      members: async () => [],
      remove: async (userId, sids) => void removed.push([userId, sids]),
    }
    const sessions = databaseStore({ store, index, indexed: true, call: (work) => work(), maxLifetime: 7200 })
    const token = await sessions.write(RECORD, null)
    await sessions.remove(token, null)
    expect(removed).toEqual([[RECORD.userId, [sidOf(token)]]])
    // A token the store holds nothing for: nothing to unlist, and nothing asked of the index.
    await sessions.remove(randomBytes(32).toString('base64url'), null)
    expect(removed).toHaveLength(1)
  })
})

describe('a session store that fails', () => {
  const cookieOf = (value: string) => `auth.session-token=${value}`

  it('answers 503 {} and keeps the cookie, whether the store errs, throws or never answers, and logs the outage once', async () => {
    for (const misbehave of [
      (callback: (error: unknown) => void) => callback(new Error('connection refused')),
      () => {
        throw new Error('thrown inside get')
      },
      () => undefined, // never calls back
    ]) {
      const { store } = scriptedStore(misbehave)
      const { app, logs } = makeApp({ session: { strategy: 'database', store }, storeTimeout: 50 })
      for (let i = 0; i < 3; i++) {
        const res = await request(app).get('/api/auth/session').set('Cookie', cookieOf(token())).expect(503, {})
        expect(setCookies(res)).toEqual([])
      }
      expect(logs.filter((entry) => entry.event === 'store.unavailable')).toHaveLength(1)
    }
  })

  it('works again, without a restart, once the store answers; the return is logged once', async () => {
    let up = false
    const { store } = scriptedStore((callback) => (up ? callback(null, null) : callback(new Error('down'))))
    const { app, logs } = makeApp({ session: { strategy: 'database', store }, storeTimeout: 50 })
    await request(app).get('/api/auth/session').set('Cookie', cookieOf(token())).expect(503)
    up = true
    // An unknown token: no session, and its cookie cleared.
    const res = await request(app).get('/api/auth/session').set('Cookie', cookieOf(token())).expect(200, {})
    expect(setCookies(res).map((cookie) => [cookie.name, cookie.value])).toEqual([['auth.session-token', '']])
    await request(app).get('/api/auth/session').set('Cookie', cookieOf(token())).expect(200, {})
    expect(logs.map((entry) => entry.event).filter((event) => event.startsWith('store.'))).toEqual([
      'store.unavailable',
      'store.recovered',
    ])
  })

  it('never asks the store about a cookie that is not a token it could have issued', async () => {
    const { store, calls } = scriptedStore((callback) => callback(null, null))
    const { app } = makeApp({ session: { strategy: 'database', store } })
    for (const value of ['x', 'a'.repeat(44), `${'a'.repeat(42)}.`, 'eyJhbGciOiJkaXIifQ..a.b.c'])
      await request(app).get('/api/auth/session').set('Cookie', cookieOf(value)).expect(200, {})
    expect(calls).toEqual([])
  })

  it('signs this browser out when the store is down (cookie cleared, 503 page), but keeps it for a sign-out everywhere', async () => {
    const { store } = scriptedStore((callback) => callback(new Error('down')))
    const { app } = makeApp({ session: { strategy: 'database', store }, storeTimeout: 50 })
    const agent = request.agent(app)
    const { csrfToken } = (await agent.get('/api/auth/csrf')).body as { csrfToken: string }
    const signOut = (fields: Record<string, string>) =>
      agent
        .post('/api/auth/signout')
        .set('Cookie', cookieOf(token()))
        .type('form')
        .send({ csrfToken, ...fields })
        .expect(503)
    const plain = await signOut({})
    expect(plain.text).toContain('Service unavailable')
    const cleared = setCookies(plain).filter((cookie) => cookie.name === 'auth.session-token')
    expect(cleared.map((cookie) => cookie.value)).toEqual([''])
    const everywhere = await signOut({ everywhere: 'true' })
    expect(setCookies(everywhere).filter((cookie) => cookie.name === 'auth.session-token')).toEqual([])
  })
})

describe('a store that fails, for a client that asked for JSON', () => {
  it("answers the NextAuth client's sign-out with the error page's URL and 503, not a page it cannot read", async () => {
    const { store } = scriptedStore((callback) => callback(new Error('down')))
    const { app } = makeApp({ session: { strategy: 'database', store }, storeTimeout: 50 })
    const agent = request.agent(app)
    const { csrfToken } = (await agent.get('/api/auth/csrf')).body as { csrfToken: string }
    await agent
      .post('/api/auth/signout')
      .set('Cookie', `auth.session-token=${token()}`)
      .type('form')
      .send({ csrfToken, json: 'true' })
      .expect(503, { url: 'http://localhost:3000/api/auth/error?error=ServiceUnavailable' })
  })
})
