import { memoryVerificationStore } from '../../lib/store/verification'
import { clockAt } from '../support/clock'
import { verificationStoreContract } from './verification.contract'

verificationStoreContract('the in-memory store', () => memoryVerificationStore())

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
