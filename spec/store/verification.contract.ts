import type { VerificationStore } from '../../lib'
import { clockAt, setClock } from '../support/clock'

/**
 * The contract every VerificationStore keeps (the in-memory default here; the Redis store and an
 * app's own store run it unchanged): a put record is taken once, atomically; an expired one is
 * never given out; remove forgets; keys never collide.
 */
export function verificationStoreContract(
  name: string,
  makeStore: () => VerificationStore | Promise<VerificationStore>,
): void {
  describe(`${name}: the VerificationStore contract`, () => {
    const T0 = 1_800_000_000
    clockAt(T0)
    let store: VerificationStore
    beforeEach(async () => {
      store = await makeStore()
    })

    it('gives a record out once: take is get-and-delete', async () => {
      await store.put('k1', { identifier: 'ada@example.com', expires: T0 + 600 })
      await expect(store.take('k1')).resolves.toEqual({ identifier: 'ada@example.com', expires: T0 + 600 })
      await expect(store.take('k1')).resolves.toBeNull()
    })

    it('answers null for a key it never had, and keeps keys apart', async () => {
      await store.put('k1', { identifier: 'ada@example.com', expires: T0 + 600 })
      await expect(store.take('k2')).resolves.toBeNull()
      await expect(store.take('k1')).resolves.toMatchObject({ identifier: 'ada@example.com' })
    })

    it('never gives out a record past its expiry', async () => {
      await store.put('k1', { identifier: 'ada@example.com', expires: T0 + 60 })
      setClock(T0 + 61)
      await expect(store.take('k1')).resolves.toBeNull()
    })

    it('forgets a removed record', async () => {
      await store.put('k1', { identifier: 'ada@example.com', expires: T0 + 600 })
      await store.remove('k1')
      await expect(store.take('k1')).resolves.toBeNull()
    })

    it('lets exactly one of many concurrent takes of one key have the record', async () => {
      await store.put('k1', { identifier: 'ada@example.com', expires: T0 + 600 })
      const taken = await Promise.all(Array.from({ length: 10 }, () => store.take('k1')))
      expect(taken.filter((record) => record !== null)).toHaveLength(1)
    })
  })
}
