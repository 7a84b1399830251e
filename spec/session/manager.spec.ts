import { jwtDecrypt } from 'jose'
import type { CookieDef } from '../../lib/infra/config/cookies'
import { cookieStore } from '../../lib/core/session/cookie-store'
import { CookieTransport } from '../../lib/core/session/cookie-transport'
import { createSessionManager, type SessionTiming } from '../../lib/core/session/manager'
import type { RecordStore } from '../../lib/core/session/record-store'
import type { Revocations } from '../../lib/infra/store/types'
import { clockAt, setClock } from '../support/clock'
import { expectCookie, setCookies } from '../support/cookies'
import { fakeResponse } from '../support/fake-response'
import {
  ADA,
  CHUNK_LENGTH,
  DAY,
  KEYS,
  SIGNED_IN_AT,
  VALID_AT,
  VECTORS,
  keyFromHex,
  ringOf,
  sessionCookies,
} from '../support/sessions'

// The inputs are independent of lib/: the key is the committed HKDF output, the tokens are the
// committed vectors, and what the manager writes is opened with jose.
const KEY = keyFromHex(KEYS.session)
const RING = ringOf(KEY)
const DEF: CookieDef = { name: 'auth.session-token', attrs: '; Path=/; HttpOnly; SameSite=Lax' }
const TIMING: SessionTiming = { maxAge: 3600, updateAge: 60, maxLifetime: 30 * DAY }
/** No user's sessions were ever revoked. */
const NO_REVOCATIONS: Revocations = {
  before: async () => 0,
  stamp: async () => Math.floor(Date.now() / 1000),
  revoke: async () => undefined,
}

/** The cookie store, with every call recorded. */
function spyStore() {
  const store = cookieStore(RING)
  return {
    read: jest.fn(store.read.bind(store)),
    write: jest.fn(store.write.bind(store)),
    remove: jest.fn(store.remove.bind(store)),
    removeAll: jest.fn(store.removeAll.bind(store)),
  } satisfies RecordStore
}

/** A request carrying `cookies`, and what its response was sent (read with the Set-Cookie helpers). */
function exchange(cookies: Record<string, string> = {}) {
  const { res, sent } = fakeResponse()
  const cookie = new CookieTransport(cookies, DEF, res)
  return { cookie, sent }
}

async function claimsOf(token: string | undefined) {
  const { payload, protectedHeader } = await jwtDecrypt(token ?? '', KEY, { currentDate: new Date() })
  expect(protectedHeader).toEqual({ alg: 'dir', enc: 'A256GCM' })
  return payload
}

describe('the session manager', () => {
  clockAt(VALID_AT)

  describe('present', () => {
    it('sees the cookie or its first chunk, without opening anything', () => {
      const sessions = createSessionManager(spyStore(), TIMING, NO_REVOCATIONS)
      expect(sessions.present(exchange().cookie)).toBe(false)
      expect(sessions.present(exchange({ 'auth.csrf-token': 'x' }).cookie)).toBe(false)
      expect(sessions.present(exchange({ 'auth.session-token': 'garbage' }).cookie)).toBe(true)
      expect(sessions.present(exchange({ 'auth.session-token.0': 'garbage' }).cookie)).toBe(true)
    })
  })

  describe('read', () => {
    it('reads the record of a known token', async () => {
      const sessions = createSessionManager(spyStore(), TIMING, NO_REVOCATIONS)
      const record = await sessions.read(exchange(sessionCookies(VECTORS.adaWithToken)).cookie)
      expect(record).toEqual({
        userId: 'github:1',
        user: ADA,
        data: { accessToken: 'secret-token' },
        createdAt: SIGNED_IN_AT,
        issuedAt: SIGNED_IN_AT,
        expiresAt: SIGNED_IN_AT + 30 * DAY,
      })
    })

    it('joins the chunks of a large session', async () => {
      const cookies = sessionCookies(VECTORS.large)
      expect(Object.keys(cookies)).toEqual(['auth.session-token.0', 'auth.session-token.1', 'auth.session-token.2'])
      const record = await createSessionManager(spyStore(), TIMING, NO_REVOCATIONS).read(exchange(cookies).cookie)
      expect(record?.data).toEqual({ bio: 'b'.repeat(6000) })
    })

    it('answers null without a cookie, and never asks the store', async () => {
      const store = spyStore()
      expect(
        await createSessionManager(store, TIMING, NO_REVOCATIONS).read(exchange({ 'auth.csrf-token': 'x' }).cookie),
      ).toBeNull()
      expect(store.read).not.toHaveBeenCalled()
    })

    it.each([
      ['sealed with another secret', sessionCookies(VECTORS.otherSecret)],
      ['with a user of the wrong shape', sessionCookies(VECTORS.wrongUser)],
      [
        'missing a chunk',
        {
          'auth.session-token.0': VECTORS.large.slice(0, CHUNK_LENGTH),
          'auth.session-token.2': VECTORS.large.slice(2 * CHUNK_LENGTH),
        },
      ],
      ['not a JWE', { 'auth.session-token': 'garbage' }],
    ])('answers null for a token %s', async (_label, cookies) => {
      expect(await createSessionManager(spyStore(), TIMING, NO_REVOCATIONS).read(exchange(cookies).cookie)).toBeNull()
    })

    it('answers null once the session has expired: valid until the second before exp', async () => {
      const sessions = createSessionManager(spyStore(), TIMING, NO_REVOCATIONS)
      const { cookie } = exchange(sessionCookies(VECTORS.oneHour))
      setClock(SIGNED_IN_AT + 3599)
      expect(await sessions.read(cookie)).toMatchObject({ userId: 'github:1' })
      setClock(SIGNED_IN_AT + 3600)
      expect(await sessions.read(cookie)).toBeNull()
      setClock(VALID_AT)
      expect(await sessions.read(exchange(sessionCookies(VECTORS.expired)).cookie)).toBeNull()
    })

    it('answers null from maxLifetime after sign-in, however far away exp is', async () => {
      const sessions = createSessionManager(spyStore(), { ...TIMING, maxLifetime: 7200 }, NO_REVOCATIONS)
      const { cookie } = exchange(sessionCookies(VECTORS.ada))
      setClock(SIGNED_IN_AT + 7199)
      expect(await sessions.read(cookie)).toMatchObject({ userId: 'github:1' })
      setClock(SIGNED_IN_AT + 7200)
      expect(await sessions.read(cookie)).toBeNull()
    })
  })

  describe('create', () => {
    it('issues a session now, for maxAge, in one cookie jose opens', async () => {
      const store = spyStore()
      const { cookie, sent } = exchange()
      const record = await createSessionManager(store, TIMING, NO_REVOCATIONS).create(cookie, {
        userId: 'github:2',
        user: { name: 'Grace' },
      })
      expect(record).toEqual({
        userId: 'github:2',
        user: { name: 'Grace' },
        createdAt: VALID_AT,
        issuedAt: VALID_AT,
        expiresAt: VALID_AT + 3600,
        // The sign-in's own id (128 random bits): what names a cookie session outside (an access token's sid).
        signInId: expect.stringMatching(/^[\w-]{22}$/),
      })
      const written = expectCookie(sent, 'auth.session-token', { httpOnly: true, sameSite: 'Lax', path: '/' })
      expect(written.attributes['max-age']).toBe('3600')
      expect(written.attributes.expires).toBe(new Date((VALID_AT + 3600) * 1000).toUTCString())
      expect(setCookies(sent)).toHaveLength(1)
      expect(await claimsOf(written.value)).toEqual({
        sub: 'github:2',
        user: { name: 'Grace' },
        auth_time: VALID_AT,
        iat: VALID_AT,
        exp: VALID_AT + 3600,
        siid: record.signInId,
      })
    })

    it('keeps the data it is given', async () => {
      const { cookie, sent } = exchange()
      await createSessionManager(spyStore(), TIMING, NO_REVOCATIONS).create(cookie, {
        userId: 'github:2',
        user: {},
        data: { accessToken: 'at' },
      })
      expect(await claimsOf(expectCookie(sent, 'auth.session-token').value)).toMatchObject({
        data: { accessToken: 'at' },
      })
    })

    it('runs `stored` once the store keeps the session, before the cookie is set', async () => {
      const { cookie, sent } = exchange()
      const cookiesWhenStored: number[] = []
      const stored = jest.fn(async () => void cookiesWhenStored.push(setCookies(sent).length))
      await createSessionManager(spyStore(), TIMING, NO_REVOCATIONS).create(cookie, { userId: 'a', user: {} }, stored)
      // A cookie session has no id in a store.
      expect(stored).toHaveBeenCalledWith(null)
      expect(cookiesWhenStored).toEqual([0])
      expectCookie(sent, 'auth.session-token')
    })

    it('removes the session and sets no cookie when `stored` fails', async () => {
      const store = spyStore()
      const { cookie, sent } = exchange()
      const failing = async () => Promise.reject(new Error('the logout index did not answer'))
      const creating = createSessionManager(store, TIMING, NO_REVOCATIONS).create(
        cookie,
        { userId: 'a', user: {} },
        failing,
      )
      await expect(creating).rejects.toThrow('the logout index did not answer')
      const token = await store.write.mock.results[0]!.value
      expect(store.remove).toHaveBeenCalledWith(token, expect.objectContaining({ userId: 'a' }))
      expect(setCookies(sent)).toEqual([])
    })

    it('never reuses the token the browser brought', async () => {
      const store = spyStore()
      const { cookie, sent } = exchange(sessionCookies(VECTORS.ada))
      await createSessionManager(store, TIMING, NO_REVOCATIONS).create(cookie, {
        userId: 'github:2',
        user: { name: 'Grace' },
      })
      // With where it signed in from (the fake request has no User-Agent, nor an address).
      expect(store.write).toHaveBeenCalledWith(expect.objectContaining({ userId: 'github:2' }), null, {
        userAgent: null,
        address: null,
        provider: null,
      })
      const written = expectCookie(sent, 'auth.session-token')
      expect(written.value).not.toBe(VECTORS.ada)
      expect(await claimsOf(written.value)).toMatchObject({ sub: 'github:2' })
    })

    it(`splits a token over ${CHUNK_LENGTH} characters into chunks, and clears the single cookie it replaces`, async () => {
      const { cookie, sent } = exchange(sessionCookies(VECTORS.ada))
      await createSessionManager(spyStore(), TIMING, NO_REVOCATIONS).create(cookie, {
        userId: 'github:2',
        user: {},
        data: { bio: 'c'.repeat(6000) },
      })
      const chunks = ['auth.session-token.0', 'auth.session-token.1', 'auth.session-token.2'].map((name) =>
        expectCookie(sent, name, { cleared: false, httpOnly: true }),
      )
      expect(chunks.map((chunk) => chunk.value.length)).toEqual([CHUNK_LENGTH, CHUNK_LENGTH, expect.any(Number)])
      expect(chunks[2]!.value.length).toBeGreaterThan(0)
      expect(chunks[2]!.value.length).toBeLessThanOrEqual(CHUNK_LENGTH)
      for (const chunk of chunks) expect(chunk.attributes['max-age']).toBe('3600')
      expectCookie(sent, 'auth.session-token', { cleared: true })
      expect(setCookies(sent)).toHaveLength(4)
      expect(await claimsOf(chunks.map((chunk) => chunk.value).join(''))).toMatchObject({
        data: { bio: 'c'.repeat(6000) },
      })
    })

    it('writes a token of up to 3 cookies of 3800 characters, and refuses a longer one with what to do', async () => {
      const storeOf = (length: number): RecordStore => ({
        read: async () => null,
        write: async () => 't'.repeat(length),
        remove: async () => {},
        removeAll: async () => {},
      })
      const exact = exchange()
      await createSessionManager(storeOf(3 * CHUNK_LENGTH), TIMING, NO_REVOCATIONS).create(exact.cookie, {
        userId: 'u',
        user: {},
      })
      expect(setCookies(exact.sent).map((cookie) => cookie.value.length)).toEqual([
        CHUNK_LENGTH,
        CHUNK_LENGTH,
        CHUNK_LENGTH,
      ])
      const over = exchange()
      await expect(
        createSessionManager(storeOf(3 * CHUNK_LENGTH + 1), TIMING, NO_REVOCATIONS).create(over.cookie, {
          userId: 'u',
          user: {},
        }),
      ).rejects.toThrow(
        `a session of ${3 * CHUNK_LENGTH + 1} characters does not fit in 3 cookies of ${CHUNK_LENGTH}: keep less in its data`,
      )
      expect(setCookies(over.sent)).toEqual([])
    })

    it('works without a response (nothing to set)', async () => {
      const record = await createSessionManager(spyStore(), TIMING, NO_REVOCATIONS).create(
        new CookieTransport({}, DEF),
        { userId: 'github:2', user: {} },
      )
      expect(record.expiresAt).toBe(VALID_AT + 3600)
    })
  })

  describe('renewIfDue', () => {
    async function readOneHour(cookies: Record<string, string>) {
      const record = await createSessionManager(spyStore(), TIMING, NO_REVOCATIONS).read(exchange(cookies).cookie)
      if (!record) throw new Error('the oneHour vector did not open')
      return record
    }

    it('leaves a session younger than updateAge alone', async () => {
      const cookies = sessionCookies(VECTORS.oneHour)
      const record = await readOneHour(cookies)
      const store = spyStore()
      const { cookie, sent } = exchange(cookies)
      setClock(SIGNED_IN_AT + TIMING.updateAge - 1)
      expect(await createSessionManager(store, TIMING, NO_REVOCATIONS).renewIfDue(cookie, record)).toBe(record)
      expect(store.write).not.toHaveBeenCalled()
      expect(setCookies(sent)).toEqual([])
    })

    it('renews it from updateAge on: issued now, for maxAge, same user, data and sign-in time, over the same token', async () => {
      const cookies = sessionCookies(VECTORS.oneHour)
      const record = { ...(await readOneHour(cookies)), data: { accessToken: 'at' } }
      const store = spyStore()
      const { cookie, sent } = exchange(cookies)
      const now = SIGNED_IN_AT + TIMING.updateAge
      setClock(now)
      const renewed = await createSessionManager(store, TIMING, NO_REVOCATIONS).renewIfDue(cookie, record)
      expect(renewed).toEqual({
        userId: 'github:1',
        user: ADA,
        data: { accessToken: 'at' },
        createdAt: SIGNED_IN_AT,
        issuedAt: now,
        expiresAt: now + 3600,
      })
      expect(store.write).toHaveBeenCalledWith(renewed, VECTORS.oneHour)
      const written = expectCookie(sent, 'auth.session-token', { cleared: false })
      expect(written.attributes['max-age']).toBe('3600')
      expect(await claimsOf(written.value)).toEqual({
        sub: 'github:1',
        user: ADA,
        data: { accessToken: 'at' },
        auth_time: SIGNED_IN_AT,
        iat: now,
        exp: now + 3600,
      })
    })

    it('never renews past maxLifetime after sign-in', async () => {
      const cookies = sessionCookies(VECTORS.oneHour)
      const record = await readOneHour(cookies)
      const capped = exchange(cookies)
      setClock(SIGNED_IN_AT + 3000)
      const renewed = await createSessionManager(
        spyStore(),
        { ...TIMING, maxLifetime: 5400 },
        NO_REVOCATIONS,
      ).renewIfDue(capped.cookie, record)
      expect(renewed).toMatchObject({ issuedAt: SIGNED_IN_AT + 3000, expiresAt: SIGNED_IN_AT + 5400 })
      expect(expectCookie(capped.sent, 'auth.session-token').attributes['max-age']).toBe('2400')
      // Already ending at the cap: a renewal would not move the expiry, so none is written.
      const atCap = exchange(cookies)
      const store = spyStore()
      expect(
        await createSessionManager(store, { ...TIMING, maxLifetime: 3600 }, NO_REVOCATIONS).renewIfDue(
          atCap.cookie,
          record,
        ),
      ).toBe(record)
      expect(store.write).not.toHaveBeenCalled()
      expect(setCookies(atCap.sent)).toEqual([])
    })
  })

  describe('save', () => {
    it('rewrites the session with its new data and keeps its expiry', async () => {
      const cookies = sessionCookies(VECTORS.ada)
      const store = spyStore()
      const sessions = createSessionManager(store, TIMING, NO_REVOCATIONS)
      const { cookie, sent } = exchange(cookies)
      const record = await sessions.read(cookie)
      await sessions.save(cookie, { ...record!, data: { theme: 'dark' } })
      expect(store.write).toHaveBeenCalledWith(expect.objectContaining({ data: { theme: 'dark' } }), VECTORS.ada)
      const written = expectCookie(sent, 'auth.session-token', { cleared: false })
      expect(written.attributes['max-age']).toBe(String(SIGNED_IN_AT + 30 * DAY - VALID_AT))
      expect(await claimsOf(written.value)).toEqual({
        sub: 'github:1',
        user: ADA,
        data: { theme: 'dark' },
        auth_time: SIGNED_IN_AT,
        iat: SIGNED_IN_AT,
        exp: SIGNED_IN_AT + 30 * DAY,
      })
    })

    it('clears the chunks a smaller session no longer needs', async () => {
      const { cookie, sent } = exchange(sessionCookies(VECTORS.large))
      const sessions = createSessionManager(spyStore(), TIMING, NO_REVOCATIONS)
      const record = await sessions.read(cookie)
      await sessions.save(cookie, { ...record!, data: {} })
      expectCookie(sent, 'auth.session-token', { cleared: false })
      for (const index of [0, 1, 2]) expectCookie(sent, `auth.session-token.${index}`, { cleared: true })
      expect(setCookies(sent)).toHaveLength(4)
    })
  })

  describe('destroy and clear', () => {
    it('destroy removes the session from the store and clears every chunk, and nothing else', async () => {
      const store = spyStore()
      const { cookie, sent } = exchange({
        ...sessionCookies(VECTORS.large),
        'auth.session-token': 'stale',
        'auth.csrf-token': 'x',
      })
      await createSessionManager(store, TIMING, NO_REVOCATIONS).destroy(cookie, null)
      expect(store.remove).toHaveBeenCalledWith('stale', null)
      for (const name of [
        'auth.session-token',
        'auth.session-token.0',
        'auth.session-token.1',
        'auth.session-token.2',
      ]) {
        expectCookie(sent, name, { cleared: true, httpOnly: true, path: '/' })
      }
      expect(setCookies(sent)).toHaveLength(4)
    })

    it('destroy hands the store the whole token of a chunked session', async () => {
      const store = spyStore()
      await createSessionManager(store, TIMING, NO_REVOCATIONS).destroy(
        exchange(sessionCookies(VECTORS.large)).cookie,
        null,
      )
      expect(store.remove).toHaveBeenCalledWith(VECTORS.large, null)
    })

    it('destroy without a session cookie sets nothing', async () => {
      const store = spyStore()
      const { cookie, sent } = exchange({ 'auth.csrf-token': 'x' })
      await createSessionManager(store, TIMING, NO_REVOCATIONS).destroy(cookie, null)
      expect(store.remove).not.toHaveBeenCalled()
      expect(setCookies(sent)).toEqual([])
    })

    it('clear clears every chunk and leaves the store alone', () => {
      const store = spyStore()
      const { cookie, sent } = exchange(sessionCookies(VECTORS.large))
      createSessionManager(store, TIMING, NO_REVOCATIONS).clear(cookie)
      for (const index of [0, 1, 2]) expectCookie(sent, `auth.session-token.${index}`, { cleared: true })
      expect(setCookies(sent)).toHaveLength(3)
      expect(store.remove).not.toHaveBeenCalled()
    })
  })
})
