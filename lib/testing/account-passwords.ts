import assert from 'node:assert/strict'
import {
  at,
  identityOf,
  passwordSetter,
  sampleAccount,
  sampleHash,
  sampleUser,
  userWithAccount,
  type Rules,
} from './account-samples'

/**
 * A password account's hash (`passwordHash`): createUser and linkAccount keep it, findAccount and
 * listAccounts give it back, and setPasswordHash replaces it on the user's own account alone. Each
 * case runs only for a store with setPasswordHash (the races with unlink and deleteUser are in
 * ./account-races.ts).
 */
export function describePasswordHashes({ it, store }: Rules): void {
  /** A user with a password account (identity `credentials`, '', a fresh subject) holding `hash`. */
  const withPassword = (hash: string) =>
    userWithAccount(store(), sampleUser(), {
      provider: 'credentials',
      type: 'credentials',
      label: null,
      passwordHash: hash,
    })

  it('keeps a hash through createUser and linkAccount, and gives it back from findAccount and listAccounts', async () => {
    if (!passwordSetter(store())) return
    const hash = sampleHash()
    const user = sampleUser()
    const account = sampleAccount(user.id, { provider: 'credentials', type: 'credentials', passwordHash: hash })
    assert.deepEqual(await store().createUser(user, account), { kind: 'created', user, account })
    const other = sampleAccount(user.id, { linkedAt: at(2_000) })
    const second = sampleAccount(user.id, { provider: 'credentials', linkedAt: at(3_000), passwordHash: sampleHash() })
    assert.deepEqual(await store().linkAccount(other), { kind: 'linked', account: other })
    assert.deepEqual(await store().linkAccount(second), { kind: 'linked', account: second })
    assert.deepEqual(await store().findAccount(identityOf(account)), account)
    assert.deepEqual(await store().findAccount(identityOf(second)), second)
    assert.deepEqual(await store().listAccounts(user.id), [account, other, second])
    // The holder a refusal names comes with its hash too.
    const late = sampleUser()
    const taken = await store().createUser(late, sampleAccount(late.id, identityOf(account)))
    assert.deepEqual(taken, { kind: 'identityTaken', account })
  })

  it("sets the hash of the user's own account, and changes nothing else of it", async () => {
    const set = passwordSetter(store())
    if (!set) return
    const { user, account } = await withPassword(sampleHash())
    const oauth = sampleAccount(user.id, { linkedAt: at(2_000) })
    await store().linkAccount(oauth)
    const changed = sampleHash()
    assert.equal(await set(user.id, account.id, changed), true)
    assert.deepEqual(await store().findAccount(identityOf(account)), { ...account, passwordHash: changed })
    // An account that had none gets one as well.
    const added = sampleHash()
    assert.equal(await set(user.id, oauth.id, added), true)
    assert.deepEqual(await store().listAccounts(user.id), [
      { ...account, passwordHash: changed },
      { ...oauth, passwordHash: added },
    ])
  })

  it("answers false for another user's account and a missing one, and writes nothing", async () => {
    const set = passwordSetter(store())
    if (!set) return
    const { user, account } = await withPassword(sampleHash())
    const { user: other, account: theirs } = await withPassword(sampleHash())
    const stranger = `user-${Math.random()}`
    assert.equal(await set(user.id, theirs.id, sampleHash()), false)
    assert.equal(await set(user.id, `account-${Math.random()}`, sampleHash()), false)
    assert.equal(await set(stranger, account.id, sampleHash()), false)
    assert.deepEqual(await store().listAccounts(user.id), [account])
    assert.deepEqual(await store().listAccounts(other.id), [theirs])
    assert.deepEqual(await store().findAccount(identityOf(theirs)), theirs)
    assert.equal(await store().getUser(stranger), null)
    assert.deepEqual(await store().listAccounts(stranger), [])
  })

  it("leaves every other account's hash as it was, and a later touch keeps the new one", async () => {
    const set = passwordSetter(store())
    if (!set) return
    const { user, account } = await withPassword(sampleHash())
    const second = sampleAccount(user.id, { provider: 'credentials', linkedAt: at(2_000), passwordHash: sampleHash() })
    await store().linkAccount(second)
    const { account: theirs } = await withPassword(sampleHash())
    const changed = sampleHash()
    assert.equal(await set(user.id, account.id, changed), true)
    await store().touchAccount(user.id, account.id, at(9_000))
    assert.deepEqual(await store().listAccounts(user.id), [
      { ...account, passwordHash: changed, lastUsedAt: at(9_000) },
      second,
    ])
    assert.deepEqual(await store().findAccount(identityOf(theirs)), theirs)
  })
}
