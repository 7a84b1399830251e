import assert from 'node:assert/strict'
import { identityOf, sampleAccount, sampleUser, userWithAccount, type Rules } from './account-samples'

const HASH = '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g'

/**
 * A password account's hash (`passwordHash`, a PHC string): kept by createUser and linkAccount,
 * given back by findAccount and listAccounts (null for an account without one), and changed only
 * through `setPasswordHash` on the user's own account. For a store without `setPasswordHash` (one
 * that does not serve `password()`), only the keeping is checked.
 */
export function describePasswordHashes({ it, store }: Rules): void {
  it('keeps a password hash through createUser and linkAccount, and null for the other accounts', async () => {
    const { user, account } = await userWithAccount(store(), sampleUser(), { type: 'credentials', passwordHash: HASH })
    assert.equal((await store().findAccount(identityOf(account)))?.passwordHash, HASH)
    const other = sampleAccount(user.id, { type: 'oauth' })
    assert.equal((await store().linkAccount(other)).kind, 'linked')
    const second = sampleAccount(user.id, { type: 'credentials', provider: 'credentials', passwordHash: `${HASH}2` })
    assert.equal((await store().linkAccount(second)).kind, 'linked')
    const listed = new Map(
      (await store().listAccounts(user.id)).map(({ id, passwordHash }) => [id, passwordHash ?? null]),
    )
    assert.deepEqual(
      listed,
      new Map([
        [account.id, HASH],
        [other.id, null],
        [second.id, `${HASH}2`],
      ]),
    )
  })

  it('sets the hash of the user’s own account only, and nothing for another user’s or a missing one', async () => {
    const set = store().setPasswordHash?.bind(store())
    if (!set) return
    const { user, account } = await userWithAccount(store(), sampleUser(), { type: 'credentials', passwordHash: HASH })
    const { account: theirs } = await userWithAccount(store(), sampleUser(), {
      type: 'credentials',
      passwordHash: HASH,
    })
    assert.equal(await set(user.id, account.id, `${HASH}new`), true)
    assert.equal((await store().findAccount(identityOf(account)))?.passwordHash, `${HASH}new`)
    assert.equal(await set(user.id, theirs.id, 'stolen'), false)
    assert.equal((await store().findAccount(identityOf(theirs)))?.passwordHash, HASH)
    assert.equal(await set(user.id, `account-${Math.random()}`, 'nothing'), false)
    assert.equal(await set(`user-${Math.random()}`, account.id, 'nothing'), false)
    // The rest of the account is as it was.
    const found = await store().findAccount(identityOf(account))
    assert.deepEqual(found, { ...account, passwordHash: `${HASH}new` })
  })

  it('never brings back an unlinked account or a deleted user by setting a hash', async () => {
    const set = store().setPasswordHash?.bind(store())
    if (!set) return
    const { user, account } = await userWithAccount(store(), sampleUser(), { type: 'credentials', passwordHash: HASH })
    const other = sampleAccount(user.id)
    await store().linkAccount(other)
    assert.equal(await store().unlinkAccount(user.id, account.id, 0), 'unlinked')
    assert.equal(await set(user.id, account.id, `${HASH}x`), false)
    assert.equal(await store().findAccount(identityOf(account)), null)
    assert.equal(await store().deleteUser(user.id), true)
    assert.equal(await set(user.id, other.id, `${HASH}x`), false)
    assert.deepEqual(await store().listAccounts(user.id), [])
  })
}
