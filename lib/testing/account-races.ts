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

/** How many calls race in each test: enough to overlap in any store, few enough for a slow database. */
const RACERS = 20

/**
 * The rules that hold whatever the timing: one winner per identity and per verified address, never
 * no way in, and a hash set meanwhile brings nothing back.
 */
export function describeAccountRaces({ it, store }: Rules): void {
  it('lets exactly one of many concurrent sign-ups with one identity create a user', async () => {
    const identity = identityOf(sampleAccount(''))
    const users = Array.from({ length: RACERS }, () => sampleUser())
    const results = await Promise.all(users.map((user) => store().createUser(user, sampleAccount(user.id, identity))))
    const winners = results.flatMap((result, index) => (result.kind === 'created' ? [users[index]] : []))
    assert.equal(winners.length, 1)
    const found = await store().findAccount(identity)
    assert.equal(found?.userId, winners[0]?.id)
    for (const result of results)
      if (result.kind !== 'created') assert.deepEqual(result, { kind: 'identityTaken', account: found })
    const kept = await Promise.all(users.map((user) => store().getUser(user.id)))
    assert.deepEqual(
      kept.filter((user) => user !== null),
      winners,
    )
  })

  it('lets exactly one of concurrent links of one identity to two users win', async () => {
    const [{ user: ada }, { user: bob }] = await Promise.all([userWithAccount(store()), userWithAccount(store())])
    const identity = identityOf(sampleAccount(''))
    const accounts = Array.from({ length: RACERS }, (_, index) => sampleAccount(index % 2 ? ada.id : bob.id, identity))
    const results = await Promise.all(accounts.map((account) => store().linkAccount(account)))
    const linked = results.filter((result) => result.kind === 'linked')
    assert.equal(linked.length, 1)
    const found = await store().findAccount(identity)
    assert.deepEqual(linked[0]?.account, found)
    for (const result of results)
      if (result.kind !== 'linked') assert.deepEqual(result, { kind: 'identityTaken', account: found })
    const [adas, bobs] = await Promise.all([store().listAccounts(ada.id), store().listAccounts(bob.id)])
    assert.equal(adas.length + bobs.length, 3)
  })

  it('lets exactly one of a concurrent sign-up and links of one identity win', async () => {
    const { user: ada } = await userWithAccount(store())
    const identity = identityOf(sampleAccount(''))
    const fresh = sampleUser()
    const [created, ...links] = await Promise.all([
      store().createUser(fresh, sampleAccount(fresh.id, identity)),
      ...Array.from({ length: 5 }, () => store().linkAccount(sampleAccount(ada.id, identity))),
    ])
    const wins = links.filter((result) => result.kind === 'linked').length + (created?.kind === 'created' ? 1 : 0)
    assert.equal(wins, 1)
    const owner = (await store().findAccount(identity))?.userId
    assert.ok(owner === ada.id || owner === fresh.id)
    assert.equal((await store().getUser(fresh.id)) !== null, owner === fresh.id)
  })

  it('gives a verified address to one of many concurrent sign-ups with it, whatever its case', async () => {
    const address = `race-${Math.random().toString(36).slice(2)}@example.com`
    const users = Array.from({ length: RACERS }, (_, index) =>
      sampleUser({ email: index % 2 ? address : address.toUpperCase() }),
    )
    const accounts = users.map((user) => sampleAccount(user.id))
    const results = await Promise.all(users.map((user, index) => store().createUser(user, accounts[index] ?? null)))
    const winners = users.filter((_, index) => results[index]?.kind === 'created')
    assert.equal(winners.length, 1)
    assert.deepEqual(await store().findUserByVerifiedEmail(address), winners[0])
    for (const result of results)
      if (result.kind !== 'created') assert.deepEqual(result, { kind: 'emailTaken', user: winners[0] })
    const found = await Promise.all(accounts.map((account) => store().findAccount(identityOf(account))))
    assert.equal(found.filter((account) => account !== null).length, 1)
  })

  it("never leaves a user without a way in when two unlinks of the user's two accounts race", async () => {
    const { user, account: first } = await userWithAccount(store())
    const second = sampleAccount(user.id)
    await store().linkAccount(second)
    const results = await Promise.all([
      store().unlinkAccount(user.id, first.id, 0),
      store().unlinkAccount(user.id, second.id, 0),
    ])
    assert.deepEqual([...results].sort(), ['last', 'unlinked'])
    assert.equal((await store().listAccounts(user.id)).length, 1)
  })

  describePasswordRaces({ it, store })
}

/** setPasswordHash against unlinkAccount, deleteUser and touchAccount: for stores that have it. */
function describePasswordRaces({ it, store }: Rules): void {
  it('never brings back an account unlinked while its hash was set', async () => {
    const set = passwordSetter(store())
    if (!set) return
    const pairs = await Promise.all(Array.from({ length: RACERS }, () => passwordAndAnother()))
    // The set first: a store that reads, then writes, reads before the unlink and writes after it.
    const results = await Promise.all(
      pairs.flatMap(({ user, account }) => [
        set(user.id, account.id, sampleHash()),
        store().unlinkAccount(user.id, account.id, 0),
      ]),
    )
    assert.deepEqual(
      results.filter((_, index) => index % 2 === 1),
      pairs.map(() => 'unlinked'),
    )
    for (const { user, account, other } of pairs) {
      assert.deepEqual(await store().listAccounts(user.id), [other])
      assert.equal(await store().findAccount(identityOf(account)), null)
    }
  })

  it('never brings back a user, or an account of theirs, deleted while a hash was set', async () => {
    const set = passwordSetter(store())
    if (!set) return
    const pairs = await Promise.all(Array.from({ length: RACERS }, () => passwordAndAnother()))
    const results = await Promise.all(
      pairs.flatMap(({ user, account }) => [set(user.id, account.id, sampleHash()), store().deleteUser(user.id)]),
    )
    assert.deepEqual(
      results.filter((_, index) => index % 2 === 1),
      pairs.map(() => true),
    )
    for (const { user, account, other } of pairs) {
      assert.equal(await store().getUser(user.id), null)
      assert.deepEqual(await store().listAccounts(user.id), [])
      assert.equal(await store().findAccount(identityOf(account)), null)
      assert.equal(await store().findAccount(identityOf(other)), null)
    }
  })

  it('keeps a hash set while sign-ins touch the account', async () => {
    const set = passwordSetter(store())
    if (!set) return
    const { user, account } = await passwordAndAnother()
    const hash = sampleHash()
    // The touches first: the set's first write may find the account changed under it.
    const results = await Promise.all([
      ...Array.from({ length: 5 }, (_, index) => store().touchAccount(user.id, account.id, at(9_000 + index))),
      set(user.id, account.id, hash),
    ])
    assert.equal(results.at(-1), true)
    assert.equal((await store().findAccount(identityOf(account)))?.passwordHash, hash)
  })

  /** A user with a password account and an OAuth account, so that the password account is not the last way in. */
  async function passwordAndAnother() {
    const { user, account } = await userWithAccount(store(), sampleUser(), {
      provider: 'credentials',
      type: 'credentials',
      passwordHash: sampleHash(),
    })
    const other = sampleAccount(user.id, { linkedAt: at(2_000) })
    await store().linkAccount(other)
    return { user, account, other }
  }
}
