import assert from 'node:assert/strict'
import { at, identityOf, sampleAccount, sampleUser, userWithAccount, type Rules } from './account-samples'

/** unlinkAccount, touchAccount and deleteUser: what they change, and what they must leave alone. */
export function describeAccountRemovals({ it, store }: Rules): void {
  it('unlinks an account while another is left, and frees its identity', async () => {
    const { user, account: first } = await userWithAccount(store())
    const second = sampleAccount(user.id, { linkedAt: at(3_000) })
    await store().linkAccount(second)
    assert.equal(await store().unlinkAccount(user.id, first.id, 0), 'unlinked')
    assert.deepEqual(await store().listAccounts(user.id), [second])
    assert.equal(await store().findAccount(identityOf(first)), null)
    const { user: other } = await userWithAccount(store())
    const moved = sampleAccount(other.id, identityOf(first))
    assert.deepEqual(await store().linkAccount(moved), { kind: 'linked', account: moved })
  })

  it('refuses to unlink the last way in, counting the ways kept elsewhere', async () => {
    const { user, account } = await userWithAccount(store())
    assert.equal(await store().unlinkAccount(user.id, account.id, 0), 'last')
    assert.deepEqual(await store().listAccounts(user.id), [account])
    assert.equal(await store().unlinkAccount(user.id, account.id, 1), 'unlinked')
    assert.deepEqual(await store().listAccounts(user.id), [])
    assert.notEqual(await store().getUser(user.id), null)
  })

  it("answers missing for an account the user does not have, another user's included, and unlinks nothing", async () => {
    const { user, account } = await userWithAccount(store())
    await store().linkAccount(sampleAccount(user.id))
    const { user: other, account: theirs } = await userWithAccount(store())
    await store().linkAccount(sampleAccount(other.id))
    assert.equal(await store().unlinkAccount(user.id, theirs.id, 5), 'missing')
    assert.equal(await store().unlinkAccount(user.id, `account-${Math.random()}`, 5), 'missing')
    assert.equal(await store().unlinkAccount(`user-${Math.random()}`, account.id, 5), 'missing')
    assert.deepEqual(await store().findAccount(identityOf(theirs)), theirs)
    assert.deepEqual(await store().findAccount(identityOf(account)), account)
    assert.equal((await store().listAccounts(other.id)).length, 2)
    assert.equal((await store().listAccounts(user.id)).length, 2)
  })

  it('records when an account was last used, and ignores an account of another user', async () => {
    const { user, account } = await userWithAccount(store())
    const { account: theirs } = await userWithAccount(store())
    await store().touchAccount(user.id, account.id, at(9_000))
    await store().touchAccount(user.id, theirs.id, at(9_000))
    await store().touchAccount(user.id, `account-${Math.random()}`, at(9_000))
    const found = await store().findAccount(identityOf(account))
    assert.ok(found?.lastUsedAt instanceof Date)
    assert.equal(found.lastUsedAt.getTime(), at(9_000).getTime())
    assert.deepEqual(await store().listAccounts(user.id), [{ ...account, lastUsedAt: at(9_000) }])
    assert.deepEqual(await store().findAccount(identityOf(theirs)), theirs)
  })

  it('answers false when deleting a user it does not have', async () => {
    assert.equal(await store().deleteUser(`user-${Math.random()}`), false)
  })

  it('deletes a user with every account, so that the identities and the address can sign up again', async () => {
    const { user, account: first } = await userWithAccount(store())
    const second = sampleAccount(user.id, { provider: 'email', type: 'email' })
    await store().linkAccount(second)
    assert.equal(await store().deleteUser(user.id), true)
    assert.equal(await store().getUser(user.id), null)
    assert.deepEqual(await store().listAccounts(user.id), [])
    assert.equal(await store().findAccount(identityOf(first)), null)
    assert.equal(await store().findAccount(identityOf(second)), null)
    assert.equal(await store().findUserByVerifiedEmail(user.email ?? ''), null)
    assert.equal(await store().deleteUser(user.id), false)
    const again = sampleUser({ email: user.email })
    const result = await store().createUser(again, sampleAccount(again.id, identityOf(first)))
    assert.equal(result.kind, 'created')
    const linked = await store().linkAccount(sampleAccount(again.id, identityOf(second)))
    assert.equal(linked.kind, 'linked')
    assert.deepEqual(await store().findUserByVerifiedEmail(user.email ?? ''), again)
  })

  it('deletes a user without accounts, and its id can be created again', async () => {
    const user = sampleUser()
    await store().createUser(user, null)
    assert.equal(await store().deleteUser(user.id), true)
    assert.equal(await store().getUser(user.id), null)
    assert.equal((await store().createUser(user, null)).kind, 'created')
  })
}
