import { memoryVerificationStore } from '../../lib/features/email/store'
import { describeVerificationStoreContract } from '../../lib/testing'
import { clockAt } from '../support/clock'

// The suite the package ships (`express-auth-service/testing`), as a store's author runs it.
describeVerificationStoreContract('the in-memory store', () => memoryVerificationStore(), { describe, it, beforeEach })

describe('the in-memory store', () => {
  clockAt(1_800_000_000)

  it('keeps at most `max` links, dropping the oldest', async () => {
    const store = memoryVerificationStore(2)
    for (const key of ['a', 'b', 'c'])
      await store.put(key, { identifier: `${key}@example.com`, expires: 1_800_000_600 })
    await expect(store.take('a')).resolves.toBeNull()
    await expect(store.take('c')).resolves.toMatchObject({ identifier: 'c@example.com' })
  })

  it('does not keep a record that has already expired', async () => {
    const store = memoryVerificationStore()
    await store.put('old', { identifier: 'a@example.com', expires: 1_800_000_000 })
    await expect(store.take('old')).resolves.toBeNull()
  })
})
