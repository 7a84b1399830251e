import { memoryChallengeStore, memoryPasskeyStore } from '../../lib/features/passkey/store'
import { describePasskeyStoreContract } from '../../lib/testing'

// The suite the package ships (`express-auth-service/testing`), as a store's author runs it.
describePasskeyStoreContract('the in-memory store', () => memoryPasskeyStore(), { describe, it, beforeEach })

describe('the in-memory stores', () => {
  it('keep at most `max` passkeys: one more is refused, never another evicted', async () => {
    const store = memoryPasskeyStore(1)
    const passkey = { id: 'a', userId: 'u' } as Parameters<typeof store.create>[0]
    await expect(store.create(passkey)).resolves.toBe(true)
    await expect(store.create({ ...passkey, id: 'b' })).resolves.toBe(false)
    await expect(store.get('a')).resolves.toBe(passkey)
  })

  it('give a challenge out once', async () => {
    const challenges = memoryChallengeStore()
    await challenges.put('k', 'v', 60_000)
    await expect(Promise.all([challenges.take('k'), challenges.take('k')])).resolves.toEqual(['v', null])
  })
})
