import assert from 'node:assert/strict'
import type { PasskeyStore, StoredPasskey } from '../features/passkey/store'
import type { TestFramework } from './types'

let sequence = 0

/** A passkey as the package writes one, with a fresh id. */
function samplePasskey(userId: string, changes: Partial<StoredPasskey> = {}): StoredPasskey {
  sequence += 1
  return {
    id: `cred-${sequence}-${Math.random().toString(36).slice(2)}`,
    userId,
    userHandle: 'aGFuZGxl',
    publicKey: 'cHVibGljLWtleQ',
    counter: 0,
    transports: ['internal', 'hybrid'],
    name: 'Passkey',
    createdAt: 1_700_000_000_000,
    lastUsedAt: null,
    backedUp: true,
    deviceType: 'multiDevice',
    aaguid: 'fbfc3007-154e-4ecc-8c0b-6e020557d7bd',
    user: { name: 'Ada', email: 'ada@example.com', image: null },
    ...changes,
  }
}

/**
 * The contract every `PasskeyStore` keeps (the in-memory one, Redis's, and an app's own over its
 * database): a credential ID is created once, even by concurrent calls; get, list, update and
 * delete see the same passkeys; a user's handle, once kept, never changes. `makeStore` gives a
 * fresh, empty store for each test.
 */
export function describePasskeyStoreContract(
  name: string,
  makeStore: () => PasskeyStore | Promise<PasskeyStore>,
  { describe, it, beforeEach }: TestFramework,
): void {
  describe(`${name}: the PasskeyStore contract`, () => {
    let store: PasskeyStore
    beforeEach(async () => {
      store = await makeStore()
    })

    it('keeps a new passkey and gives it back as it was', async () => {
      const passkey = samplePasskey('user:1')
      assert.equal(await store.create(passkey), true)
      assert.deepEqual(await store.get(passkey.id), passkey)
      assert.equal(await store.get('never-created'), null)
    })

    it('refuses a second passkey with an ID that exists, whoever it is for, and keeps the first', async () => {
      const passkey = samplePasskey('user:1')
      await store.create(passkey)
      assert.equal(await store.create({ ...passkey, userId: 'user:2', publicKey: 'b3RoZXI' }), false)
      assert.deepEqual(await store.get(passkey.id), passkey)
      assert.deepEqual(await store.listByUser('user:2'), [])
    })

    it('lets exactly one of many concurrent creates of one ID succeed', async () => {
      const passkey = samplePasskey('user:1')
      const created = await Promise.all(
        Array.from({ length: 10 }, (_, index) => store.create({ ...passkey, userId: `user:${index}` })),
      )
      assert.equal(created.filter(Boolean).length, 1)
    })

    it("lists a user's passkeys, and only theirs", async () => {
      const [a, b] = [samplePasskey('user:1'), samplePasskey('user:1')]
      await store.create(a)
      await store.create(b)
      await store.create(samplePasskey('user:2'))
      const listed = await store.listByUser('user:1')
      assert.deepEqual(listed.map((passkey) => passkey.id).sort(), [a.id, b.id].sort())
      assert.deepEqual(await store.listByUser('user:3'), [])
    })

    it('updates the fields given and leaves the others', async () => {
      const passkey = samplePasskey('user:1')
      await store.create(passkey)
      await store.update(passkey.id, { counter: 7, lastUsedAt: 1_700_000_100_000, backedUp: false })
      await store.update(passkey.id, { name: 'Laptop' })
      await store.update('never-created', { name: 'ghost' })
      assert.deepEqual(await store.get(passkey.id), {
        ...passkey,
        counter: 7,
        lastUsedAt: 1_700_000_100_000,
        backedUp: false,
        name: 'Laptop',
      })
      assert.equal(await store.get('never-created'), null)
    })

    it('deletes a passkey everywhere, and an unknown ID without failing', async () => {
      const passkey = samplePasskey('user:1')
      await store.create(passkey)
      await store.delete(passkey.id)
      await store.delete('never-created')
      assert.equal(await store.get(passkey.id), null)
      assert.deepEqual(await store.listByUser('user:1'), [])
    })

    it("keeps a user's first handle: later and concurrent calls get the same one", async () => {
      assert.equal(await store.userHandle('user:1', 'Zmlyc3Q'), 'Zmlyc3Q')
      assert.equal(await store.userHandle('user:1', 'c2Vjb25k'), 'Zmlyc3Q')
      const handles = await Promise.all(['YQ', 'Yg', 'Yw'].map((fresh) => store.userHandle('user:2', fresh)))
      assert.equal(new Set(handles).size, 1)
    })
  })
}
