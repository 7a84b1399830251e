import assert from 'node:assert/strict'
import type { VerificationStore } from '../features/email/store'
import type { TestFramework } from './types'

const now = () => Math.floor(Date.now() / 1000)

/**
 * The contract every `VerificationStore` keeps (the in-memory default, the Redis store, and an app's
 * own store): a put record is taken once, atomically; an expired one is never given out; remove
 * forgets; keys never collide. `makeStore` gives a fresh, empty store for each test.
 */
export function describeVerificationStoreContract(
  name: string,
  makeStore: () => VerificationStore | Promise<VerificationStore>,
  { describe, it, beforeEach }: TestFramework,
): void {
  describe(`${name}: the VerificationStore contract`, () => {
    let store: VerificationStore
    beforeEach(async () => {
      store = await makeStore()
    })

    it('gives a record out once: take is get-and-delete', async () => {
      const record = { identifier: 'ada@example.com', expires: now() + 600 }
      await store.put('k1', record)
      assert.deepEqual(await store.take('k1'), record)
      assert.equal(await store.take('k1'), null)
    })

    it('answers null for a key it never had, and keeps keys apart', async () => {
      await store.put('k1', { identifier: 'ada@example.com', expires: now() + 600 })
      assert.equal(await store.take('k2'), null)
      assert.equal((await store.take('k1'))?.identifier, 'ada@example.com')
    })

    it('never gives out a record past its expiry', async () => {
      await store.put('k1', { identifier: 'ada@example.com', expires: now() - 1 })
      assert.equal(await store.take('k1'), null)
    })

    it('forgets a removed record, and removes a key it never had without failing', async () => {
      await store.put('k1', { identifier: 'ada@example.com', expires: now() + 600 })
      await store.remove('k1')
      await store.remove('never-put')
      assert.equal(await store.take('k1'), null)
    })

    it('lets exactly one of many concurrent takes of one key have the record', async () => {
      await store.put('k1', { identifier: 'ada@example.com', expires: now() + 600 })
      const taken = await Promise.all(Array.from({ length: 10 }, () => store.take('k1')))
      assert.equal(taken.filter((record) => record !== null).length, 1)
    })
  })
}
