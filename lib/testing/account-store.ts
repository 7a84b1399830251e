import assert from 'node:assert/strict'
import type { AccountStore } from '../features/accounts/store'
import {
  at,
  identityOf,
  readingNoHashAsNull,
  sampleAccount,
  sampleUser,
  userWithAccount,
  type Rules,
} from './account-samples'
import { describeAccountFactors } from './account-factors'
import { describePasswordHashes } from './account-passwords'
import { describeAccountRaces } from './account-races'
import { describeAccountRemovals } from './account-removals'
import type { TestFramework } from './types'

/**
 * The contract every `AccountStore` keeps (PostgreSQL's, Redis's, the in-memory one, and an app's
 * own): users and accounts come back as they were kept, Dates as Dates; an identity is the exact
 * (provider, issuer, subject) and is linked to one user at most; a verified address (whatever its
 * case) belongs to one user at most; a refused call creates nothing; and these hold under concurrent
 * calls. A store with `setPasswordHash` (one that serves `password()`) is also held to the password
 * cases: the hash kept, given back, and set on the user's own account alone, never bringing back
 * what an unlink or deleteUser removed; a store without it is not. A store with the factor methods
 * (one that serves `mfa()`) is held to the factor cases: each step and code spent once, whatever
 * the timing, and factors gone with their user. `makeStore` gives a store for
 * each test; every id the suite uses is fresh and random, so the store may be one shared database.
 */
export function describeAccountStoreContract(
  name: string,
  makeStore: () => AccountStore | Promise<AccountStore>,
  { describe, it, beforeEach }: TestFramework,
): void {
  describe(`${name}: the AccountStore contract`, () => {
    let current: AccountStore
    beforeEach(async () => {
      current = readingNoHashAsNull(await makeStore())
    })
    const rules: Rules = { it, store: () => current }
    describe('users and accounts', () => describeKeeping(rules))
    describe('creating users and linking accounts', () => describeCreating(rules))
    describe('under concurrent calls', () => describeAccountRaces(rules))
    describe('unlinking, touching and deleting', () => describeAccountRemovals(rules))
    describe('password hashes (stores with setPasswordHash)', () => describePasswordHashes(rules))
    describe('second factors (stores with the factor methods)', () => describeAccountFactors(rules))
  })
}

function describeKeeping({ it, store }: Rules): void {
  it('gives a user and its account back as they were kept, times as Dates', async () => {
    const { user, account } = await userWithAccount(store(), sampleUser(), { lastUsedAt: at(2_000) })
    const [kept, found, listed] = await Promise.all([
      store().getUser(user.id),
      store().findAccount(identityOf(account)),
      store().listAccounts(user.id),
    ])
    assert.deepEqual(kept, user)
    assert.deepEqual(found, account)
    assert.deepEqual(listed, [account])
    assert.ok(kept?.createdAt instanceof Date && kept.emailVerified instanceof Date)
    assert.equal(kept.createdAt.getTime(), user.createdAt.getTime())
    assert.equal(kept.emailVerified.getTime(), user.emailVerified?.getTime())
    assert.ok(found?.linkedAt instanceof Date && found.lastUsedAt instanceof Date)
    assert.equal(found.linkedAt.getTime(), account.linkedAt.getTime())
    assert.equal(found.lastUsedAt.getTime(), at(2_000).getTime())
  })

  it('keeps nulls as nulls', async () => {
    const user = sampleUser({ name: null, email: null, emailVerified: null, image: null })
    const { account } = await userWithAccount(store(), user, { label: null, type: 'email' })
    assert.deepEqual(await store().getUser(user.id), user)
    assert.deepEqual(await store().findAccount(identityOf(account)), account)
  })

  it('keeps ids and identities whatever characters they hold', async () => {
    const user = sampleUser({ id: `github:{42}:${Math.random()} é/\\"'%_*` })
    const odd = { provider: 'oidc:{x}', issuer: 'https://id.example.com/{tenant}', subject: `é ${Math.random()}:}` }
    const { account } = await userWithAccount(store(), user, { ...odd, type: 'oauth' })
    assert.deepEqual(await store().getUser(user.id), user)
    assert.deepEqual(await store().findAccount(identityOf(account)), account)
    assert.deepEqual(await store().listAccounts(user.id), [account])
  })

  it('answers null and [] for what it never kept', async () => {
    assert.equal(await store().getUser(`user-${Math.random()}`), null)
    assert.deepEqual(await store().listAccounts(`user-${Math.random()}`), [])
    assert.equal(await store().findAccount({ provider: 'github', issuer: '', subject: `${Math.random()}` }), null)
    assert.equal(await store().findUserByVerifiedEmail(`nobody-${Math.random()}@example.com`), null)
  })

  it('finds an account by its exact identity: the same subject under another issuer or provider is another identity', async () => {
    const subject = `sub-${Math.random()}`
    const { account } = await userWithAccount(store(), sampleUser(), {
      provider: 'acme',
      issuer: 'https://a.example.com',
      subject,
    })
    const find = (provider: string, issuer: string, subject: string) =>
      store().findAccount({ provider, issuer, subject })
    assert.deepEqual(await find('acme', 'https://a.example.com', subject), account)
    assert.equal(await find('acme', 'https://b.example.com', subject), null)
    assert.equal(await find('other', 'https://a.example.com', subject), null)
    assert.equal(await find('acme', '', subject), null)
    assert.equal(await find('acme', 'https://a.example.com', subject.toUpperCase()), null)
    // Parts are kept apart, whatever separators they hold.
    assert.equal(await find('acme:https', '//a.example.com', subject), null)
    assert.equal(await find('acme', 'https://a.example.com:' + subject, ''), null)
  })

  it('finds a user by a verified address in any case, and never by an unverified one', async () => {
    const tag = Math.random().toString(36).slice(2)
    const user = sampleUser({ email: `Ada.${tag}@Example.COM` })
    await userWithAccount(store(), user)
    assert.deepEqual(await store().findUserByVerifiedEmail(`ada.${tag}@example.com`), user)
    assert.deepEqual(await store().findUserByVerifiedEmail(`ADA.${tag}@EXAMPLE.COM`), user)
    const unverified = sampleUser({ emailVerified: null })
    await userWithAccount(store(), unverified)
    assert.equal(await store().findUserByVerifiedEmail(unverified.email ?? ''), null)
  })
}

function describeCreating({ it, store }: Rules): void {
  it('creates a user alone, without an account', async () => {
    const user = sampleUser()
    const result = await store().createUser(user, null)
    assert.equal(result.kind, 'created')
    assert.deepEqual(result.kind === 'created' && result.user, user)
    assert.deepEqual(await store().getUser(user.id), user)
    assert.deepEqual(await store().listAccounts(user.id), [])
  })

  it('answers created with the user and the account it kept', async () => {
    const user = sampleUser()
    const account = sampleAccount(user.id)
    assert.deepEqual(await store().createUser(user, account), { kind: 'created', user, account })
  })

  it('refuses a linked identity with its account, and creates nothing', async () => {
    const { account } = await userWithAccount(store())
    const late = sampleUser()
    const result = await store().createUser(late, sampleAccount(late.id, { ...identityOf(account) }))
    assert.deepEqual(result, { kind: 'identityTaken', account })
    assert.equal(await store().getUser(late.id), null)
    assert.equal(await store().findUserByVerifiedEmail(late.email ?? ''), null)
    assert.deepEqual(await store().findAccount(identityOf(account)), account)
  })

  it("refuses another user's verified address, in any case, and creates nothing", async () => {
    const { user: owner } = await userWithAccount(store())
    const late = sampleUser({ email: owner.email?.toUpperCase() ?? null })
    const account = sampleAccount(late.id)
    assert.deepEqual(await store().createUser(late, account), { kind: 'emailTaken', user: owner })
    assert.equal(await store().getUser(late.id), null)
    assert.equal(await store().findAccount(identityOf(account)), null)
    assert.deepEqual(await store().findUserByVerifiedEmail(owner.email ?? ''), owner)
  })

  it('lets an unverified address be anyone’s: it neither blocks nor is blocked', async () => {
    const { user: owner } = await userWithAccount(store())
    const unverified = sampleUser({ email: owner.email, emailVerified: null })
    assert.equal((await store().createUser(unverified, sampleAccount(unverified.id))).kind, 'created')
    const address = `shared-${Math.random()}@example.com`
    await userWithAccount(store(), sampleUser({ email: address, emailVerified: null }))
    const verified = sampleUser({ email: address })
    assert.equal((await store().createUser(verified, sampleAccount(verified.id))).kind, 'created')
    assert.deepEqual(await store().findUserByVerifiedEmail(address), verified)
  })

  it('refuses a user id that exists, and creates nothing', async () => {
    const { user, account } = await userWithAccount(store())
    const again = sampleUser({ id: user.id, name: 'Someone else' })
    const other = sampleAccount(user.id)
    assert.deepEqual(await store().createUser(again, other), { kind: 'userExists' })
    assert.deepEqual(await store().createUser({ ...again }, null), { kind: 'userExists' })
    assert.deepEqual(await store().getUser(user.id), user)
    assert.equal(await store().findAccount(identityOf(other)), null)
    assert.equal(await store().findUserByVerifiedEmail(again.email ?? ''), null)
    assert.deepEqual(await store().listAccounts(user.id), [account])
  })

  it('links an identity to a user, and lists it after the first', async () => {
    const { user, account: first } = await userWithAccount(store())
    const second = sampleAccount(user.id, { provider: 'email', type: 'email', linkedAt: at(3_000) })
    const third = sampleAccount(user.id, { provider: 'google', linkedAt: at(4_000), lastUsedAt: at(4_000) })
    assert.deepEqual(await store().linkAccount(second), { kind: 'linked', account: second })
    assert.deepEqual(await store().linkAccount(third), { kind: 'linked', account: third })
    assert.deepEqual(await store().findAccount(identityOf(second)), second)
    assert.deepEqual(await store().listAccounts(user.id), [first, second, third])
  })

  it('refuses an identity linked already, to this user or another, and changes nothing', async () => {
    const { user, account } = await userWithAccount(store())
    const { user: other } = await userWithAccount(store())
    const again = sampleAccount(user.id, { ...identityOf(account), label: 'again' })
    assert.deepEqual(await store().linkAccount(again), { kind: 'identityTaken', account })
    const stolen = sampleAccount(other.id, { ...identityOf(account) })
    assert.deepEqual(await store().linkAccount(stolen), { kind: 'identityTaken', account })
    assert.deepEqual(await store().listAccounts(user.id), [account])
    assert.equal((await store().listAccounts(other.id)).length, 1)
  })

  it('refuses to link to a user who does not exist, and keeps nothing', async () => {
    const account = sampleAccount(`user-${Math.random()}`)
    assert.deepEqual(await store().linkAccount(account), { kind: 'noUser' })
    assert.equal(await store().findAccount(identityOf(account)), null)
    assert.deepEqual(await store().listAccounts(account.userId), [])
  })
}
