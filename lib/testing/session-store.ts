import assert from 'node:assert/strict'
import type { TestFramework } from './types'

/**
 * The part of an express-session store the service calls (`session.store`): each under the store
 * deadline, with Node-style callbacks.
 */
export interface SessionStoreLike {
  get(sid: string, callback: (error: unknown, session?: unknown) => void): void
  set(sid: string, session: object, callback?: (error?: unknown) => void): void
  destroy(sid: string, callback?: (error?: unknown) => void): void
}

const call = <T>(run: (callback: (error: unknown, value?: T) => void) => void) =>
  new Promise<T | undefined>((resolve, reject) => {
    run((error, value) =>
      error
        ? reject(error instanceof Error ? error : new Error('the store answered an error', { cause: error }))
        : resolve(value),
    )
  })

/** A record shaped as the service writes it: `cookie.expires` (an ISO date) says when to forget it. */
const record = (expiresInMs: number, userId = 'user-1') => ({
  cookie: { expires: new Date(Date.now() + expiresInMs).toISOString() },
  userId,
  user: { name: 'Ada', email: 'ada@example.com', image: null },
  data: { theme: 'dark', nested: { list: [1, 'two', null] } },
  createdAt: 1_800_000_000,
})

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * The contract a session store is held to before `session: { strategy: 'database', store }` uses
 * it: what is set is got back as JSON round-trips it, unknown ids answer nothing (not an error),
 * destroy forgets, ids never collide, and an entry is gone once its `cookie.expires` has passed.
 * `makeStore` gives a store for each test (a fresh one, or one shared: the ids are each test's own).
 */
export function describeSessionStoreContract(
  name: string,
  makeStore: () => SessionStoreLike | Promise<SessionStoreLike>,
  { describe, it, beforeEach }: TestFramework,
): void {
  describe(`${name}: the session store contract`, () => {
    let store: SessionStoreLike
    let n = 0
    const sid = () => `contract-${process.pid}-${Date.now()}-${++n}`
    const get = (id: string) => call<unknown>((done) => store.get(id, done))
    const set = (id: string, value: object) => call<void>((done) => store.set(id, value, done))
    const destroy = (id: string) => call<void>((done) => store.destroy(id, done))
    beforeEach(async () => {
      store = await makeStore()
    })

    it('gives back what was set, as JSON round-trips it', async () => {
      const id = sid()
      const value = record(60_000)
      await set(id, value)
      assert.deepEqual(JSON.parse(JSON.stringify(await get(id))), JSON.parse(JSON.stringify(value)))
    })

    it('answers nothing, not an error, for an id it never had', async () => {
      assert.equal((await get(sid())) ?? null, null)
    })

    it('keeps ids apart, and a second set replaces the first', async () => {
      const [a, b] = [sid(), sid()]
      await set(a, record(60_000, 'user-a'))
      await set(b, record(60_000, 'user-b'))
      await set(a, record(60_000, 'user-a2'))
      assert.equal(((await get(a)) as { userId?: unknown } | undefined)?.userId, 'user-a2')
      assert.equal(((await get(b)) as { userId?: unknown } | undefined)?.userId, 'user-b')
    })

    it('forgets a destroyed id, and destroys an id it never had without failing', async () => {
      const id = sid()
      await set(id, record(60_000))
      await destroy(id)
      await destroy(sid())
      assert.equal((await get(id)) ?? null, null)
    })

    it('forgets an entry once its cookie.expires has passed', async () => {
      const id = sid()
      await set(id, record(1_000))
      await sleep(2_100)
      assert.equal((await get(id)) ?? null, null)
    })
  })
}
