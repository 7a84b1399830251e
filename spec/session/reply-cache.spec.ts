import session from 'express-session'
import type { CookieDef } from '../../lib/infra/config/cookies'
import type { SessionRecord } from '../../lib/infra/config/types'
import { cookieStore } from '../../lib/core/session/cookie-store'
import { CookieTransport } from '../../lib/core/session/cookie-transport'
import { databaseStore, type CachedRecords } from '../../lib/core/session/database-store'
import { createSessionManager, type SessionRevocations, type SessionTiming } from '../../lib/core/session/manager'
import { REPLY_CACHE_LIMITS, replyCache } from '../../lib/core/session/reply-cache'
import type { RecordStore } from '../../lib/core/session/record-store'
import type { SessionTransport } from '../../lib/core/session/transport'
import { callStore, type ExpressSessionStore } from '../../lib/infra/store/express-session-store'
import { memoryState } from '../../lib/infra/store/memory'
import { clockAt, setClock } from '../support/clock'
import { setCookies } from '../support/cookies'
import { fakeResponse } from '../support/fake-response'
import { jweSpellings } from '../support/respell'
import {
  ADA,
  DAY,
  KEYS,
  SIGNED_IN_AT,
  VALID_AT,
  VECTORS,
  keyFromHex,
  ringOf,
  sessionCookies,
} from '../support/sessions'

const TIMING: SessionTiming = { maxAge: 3600, updateAge: 600, maxLifetime: DAY }
const DEF: CookieDef = { name: 'auth.session-token', attrs: '; Path=/; HttpOnly; SameSite=Lax' }

function record(overrides: Partial<SessionRecord> = {}): SessionRecord {
  return {
    userId: 'github:1',
    user: { ...ADA },
    createdAt: SIGNED_IN_AT,
    issuedAt: SIGNED_IN_AT,
    expiresAt: SIGNED_IN_AT + 3600,
    ...overrides,
  }
}

const NONE_REVOKED = () => 0

describe('the reply cache', () => {
  it('answers a remembered reply until the second before the session ends', () => {
    const cache = replyCache(TIMING, REPLY_CACHE_LIMITS)
    cache.set('token', record({ expiresAt: SIGNED_IN_AT + 500 }), '{"a":1}')
    expect(cache.get('token', SIGNED_IN_AT + 499, NONE_REVOKED)).toBe('{"a":1}')
    expect(cache.get('token', SIGNED_IN_AT + 500, NONE_REVOKED)).toBeNull()
    // An ended session is forgotten, not kept until it is pushed out.
    expect(cache.size).toBe(0)
  })

  it('ends a session at maxLifetime after sign-in, whatever its expiry says', () => {
    const cache = replyCache(TIMING, REPLY_CACHE_LIMITS)
    const renewedLate = record({
      createdAt: SIGNED_IN_AT,
      issuedAt: SIGNED_IN_AT + DAY - 10,
      expiresAt: SIGNED_IN_AT + DAY,
    })
    cache.set('token', { ...renewedLate, expiresAt: SIGNED_IN_AT + DAY + 3000 }, 'reply')
    expect(cache.get('token', SIGNED_IN_AT + DAY - 1, NONE_REVOKED)).toBe('reply')
    expect(cache.get('token', SIGNED_IN_AT + DAY, NONE_REVOKED)).toBeNull()
  })

  it('misses from updateAge on, so that the request renews the session', () => {
    const cache = replyCache(TIMING, REPLY_CACHE_LIMITS)
    cache.set('token', record(), 'reply')
    expect(cache.get('token', SIGNED_IN_AT + 599, NONE_REVOKED)).toBe('reply')
    expect(cache.get('token', SIGNED_IN_AT + 600, NONE_REVOKED)).toBeNull()
  })

  it('keeps answering past updateAge a session that renewal cannot extend (at its lifetime)', () => {
    const cache = replyCache(TIMING, REPLY_CACHE_LIMITS)
    cache.set('token', record({ expiresAt: SIGNED_IN_AT + DAY }), 'reply')
    expect(cache.get('token', SIGNED_IN_AT + 5000, NONE_REVOKED)).toBe('reply')
  })

  it('misses once the revocation time is past the sign-in, and while that time is not known', () => {
    const cache = replyCache(TIMING, REPLY_CACHE_LIMITS)
    cache.set('token', record(), 'reply')
    expect(cache.get('token', VALID_AT, () => SIGNED_IN_AT)).toBe('reply')
    expect(cache.get('token', VALID_AT, () => SIGNED_IN_AT + 1)).toBeNull()
    expect(cache.get('token', VALID_AT, () => undefined)).toBeNull()
    expect(cache.get('token', VALID_AT, (userId) => (userId === 'github:1' ? SIGNED_IN_AT + 1 : 0))).toBeNull()
  })

  it("asks a database store's check on every hit, and forgets the entry once it fails", () => {
    const cache = replyCache(TIMING, REPLY_CACHE_LIMITS)
    let held = true
    const current = jest.fn(() => held)
    cache.set('token', record(), 'reply', current)
    expect(cache.get('token', VALID_AT, NONE_REVOKED)).toBe('reply')
    expect(cache.get('token', VALID_AT, NONE_REVOKED)).toBe('reply')
    expect(current).toHaveBeenCalledTimes(2)
    held = false
    expect(cache.get('token', VALID_AT, NONE_REVOKED)).toBeNull()
    held = true
    expect(cache.get('token', VALID_AT, NONE_REVOKED)).toBeNull()
    expect(cache.size).toBe(0)
  })

  it('answers only the exact token it was given', () => {
    const cache = replyCache(TIMING, REPLY_CACHE_LIMITS)
    cache.set('abcdef', record(), 'reply')
    for (const other of ['abcdeg', 'abcde', 'abcdef ', 'Abcdef'])
      expect(cache.get(other, VALID_AT, NONE_REVOKED)).toBeNull()
  })

  it('holds at most `max` entries, the least recently used going first', () => {
    const cache = replyCache(TIMING, { max: 3, maxChars: 1_000_000 })
    for (const token of ['a', 'b', 'c', 'd', 'e']) cache.set(token, record(), token)
    expect(cache.size).toBe(3)
    expect(cache.get('a', VALID_AT, NONE_REVOKED)).toBeNull()
    expect(cache.get('e', VALID_AT, NONE_REVOKED)).toBe('e')
  })

  it('holds at most `maxChars` characters, and never one entry larger than 32 KB', () => {
    const cache = replyCache(TIMING, { max: 1000, maxChars: 10_000 })
    for (let index = 0; index < 100; index++) cache.set(`token-${index}-${'t'.repeat(500)}`, record(), 'r'.repeat(1000))
    // Each entry counts its token, twice its reply and 200: about 2,700 characters.
    expect(cache.size).toBe(3)
    const huge = replyCache(TIMING, REPLY_CACHE_LIMITS)
    huge.set('t'.repeat(40_000), record(), 'reply')
    expect(huge.size).toBe(0)
  })

  it('is bounded by default: 10 000 entries and 16 MB', () => {
    expect(REPLY_CACHE_LIMITS).toEqual({ max: 10_000, maxChars: 16 * 1024 * 1024 })
    const cache = replyCache(TIMING, REPLY_CACHE_LIMITS)
    for (let index = 0; index < 10_050; index++) cache.set(`token-${index}`, record(), 'reply')
    expect(cache.size).toBe(10_000)
  })
})

describe('the session manager with replies reused', () => {
  clockAt(VALID_AT)
  const RING = ringOf(keyFromHex(KEYS.session))
  const TIMING_30 = { maxAge: 30 * DAY, updateAge: DAY, maxLifetime: 30 * DAY }
  const revocations: SessionRevocations = {
    before: async () => 0,
    peek: () => 0,
    stamp: async () => VALID_AT,
    revoke: async () => undefined,
  }

  function spied(store: RecordStore) {
    const read = jest.fn(store.read.bind(store))
    return { store: { ...store, read }, read }
  }
  const cookieOf = (token: string) => new CookieTransport(sessionCookies(token), DEF, fakeResponse().res)

  it('opens the cookie once, then answers from memory', async () => {
    const { store, read } = spied(cookieStore(RING))
    const sessions = createSessionManager(store, TIMING_30, revocations, { replies: REPLY_CACHE_LIMITS })
    const cookie = cookieOf(VECTORS.ada)
    expect(sessions.recall(cookie)).toBeNull()
    const found = await sessions.open(cookie)
    sessions.remember(cookie, found!, 'the reply')
    expect(sessions.recall(cookieOf(VECTORS.ada))).toBe('the reply')
    expect(read).toHaveBeenCalledTimes(1)
    setClock(SIGNED_IN_AT + 30 * DAY)
    expect(sessions.recall(cookie)).toBeNull()
  })

  it('opens a session under its one spelling only, so that its twins can never become entries', async () => {
    // The IV, ciphertext and tag respelled (spare bits, a character past the last group): each twin
    // would otherwise open to the same session and be remembered under a key of its own.
    const { store, read } = spied(cookieStore(RING))
    const sessions = createSessionManager(store, TIMING_30, revocations, { replies: REPLY_CACHE_LIMITS })
    const [real, ...twins] = jweSpellings(VECTORS.ada)
    expect(twins.length).toBeGreaterThan(1000)
    sessions.remember(cookieOf(real!), (await sessions.open(cookieOf(real!)))!, 'the reply')
    const opened: string[] = []
    for (const twin of twins) {
      expect(sessions.recall(cookieOf(twin))).toBeNull()
      if ((await sessions.read(cookieOf(twin))) !== null) opened.push(twin)
    }
    expect(opened).toEqual([])
    expect(read).toHaveBeenCalledTimes(1 + twins.length)
    expect(sessions.recall(cookieOf(real!))).toBe('the reply')
  })

  it('forgets the reply of a cookie signed out with', async () => {
    const sessions = createSessionManager(cookieStore(RING), TIMING_30, revocations, { replies: REPLY_CACHE_LIMITS })
    const cookie = cookieOf(VECTORS.ada)
    sessions.remember(cookie, (await sessions.open(cookie))!, 'the reply')
    await sessions.destroy(cookie, null)
    expect(sessions.recall(cookie)).toBeNull()
  })

  it.each([
    ['replies are not reused (a session callback or event runs per request)', {}, revocations, true],
    [
      "the store cannot tell how long its records hold (reuse 'never')",
      { replies: REPLY_CACHE_LIMITS },
      revocations,
      false,
    ],
    [
      'the revocations cannot answer without I/O',
      { replies: REPLY_CACHE_LIMITS },
      { ...revocations, peek: undefined },
      true,
    ],
  ])('never remembers when %s', async (_label, options, revs, checked) => {
    const store = cookieStore(RING)
    const unchecked: RecordStore = {
      ...store,
      read: async (...args) => {
        const opened = await store.read(...args)
        return opened && { ...opened, reuse: 'never' }
      },
    }
    const sessions = createSessionManager(checked ? store : unchecked, TIMING_30, revs, options)
    const cookie = cookieOf(VECTORS.ada)
    sessions.remember(cookie, (await sessions.open(cookie))!, 'the reply')
    expect(sessions.recall(cookie)).toBeNull()
  })
})

/**
 * Database records held in memory as Redis's client-side caching holds them (lib/infra/store/redis/):
 * read through once, then held, with a version, until this process changes them.
 */
function heldInMemory(store: ExpressSessionStore): CachedRecords {
  const held = new Map<string, { stored: unknown; version: object }>()
  return {
    get: async (sid) => {
      const stored = await callStore<unknown>((done) => store.get(sid, done))
      held.set(sid, { stored, version: {} })
      return stored
    },
    changing: async (sid, work) => {
      held.delete(sid)
      try {
        return await work()
      } finally {
        held.delete(sid)
      }
    },
    held: (sid) => held.get(sid),
    listed: () => true,
    stillHeld: (sid, version) => () => held.get(sid)?.version === version,
  }
}

describe('the reply cache behind a store that copies its records', () => {
  clockAt(VALID_AT)
  const revocations: SessionRevocations = {
    before: async () => 0,
    peek: () => 0,
    stamp: async () => VALID_AT,
    revoke: async () => undefined,
  }

  /** What `GET /session` does: the remembered reply, else the session opened and its reply remembered. */
  async function getSession(sessions: ReturnType<typeof createSessionManager>, cookie: SessionTransport) {
    const remembered = sessions.recall(cookie)
    if (remembered !== null) return remembered
    const opened = await sessions.open(cookie)
    const reply = JSON.stringify({ user: opened!.record.user })
    sessions.remember(cookie, opened!, reply)
    return reply
  }

  it('keeps reusing the reply of a database record held in memory, whatever object the record arrives in', async () => {
    const memory = new session.MemoryStore()
    const inner = databaseStore({
      store: memory,
      index: memoryState(DAY).sessionIndex,
      indexed: true,
      call: (work) => work(),
      maxLifetime: DAY,
      cached: heldInMemory(memory),
    })
    // A store in between (a feature's wrapper, say) that hands the manager a copy of each record.
    const reads = jest.fn()
    const copying: RecordStore = {
      ...inner,
      read: async (...args) => {
        reads()
        const opened = await inner.read(...args)
        return opened && { ...opened, record: { ...opened.record } }
      },
    }
    const sessions = createSessionManager(copying, TIMING, revocations, { replies: REPLY_CACHE_LIMITS })
    const { res, sent } = fakeResponse()
    await sessions.create(new CookieTransport({}, DEF, res), { userId: 'github:1', user: { ...ADA } })
    const cookies = Object.fromEntries(setCookies(sent).map(({ name, value }) => [name, value]))

    const replies = []
    for (let i = 0; i < 5; i++) replies.push(await getSession(sessions, new CookieTransport(cookies, DEF)))
    expect(new Set(replies)).toEqual(new Set([JSON.stringify({ user: ADA })]))
    // Read through to the store, then from memory (held: its reply remembered), then remembered.
    expect(reads).toHaveBeenCalledTimes(2)
  })
})
