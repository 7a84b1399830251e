/**
 * Interim: the AccountStore rules the PostgreSQL store keeps under concurrency, until the shared
 * contract suite runs on it (then this file goes).
 */
import { randomBytes } from 'node:crypto'
import { postgresAccounts, type PostgresAccountStore } from '../../lib/features/accounts/postgres-store'
import type { StoredAccount, User } from '../../lib/features/accounts/store'
import { postgresForFile } from '../support/postgres'

const db = postgresForFile('account-rules')
let tables = 0
let store: PostgresAccountStore
beforeEach(async () => {
  tables += 1
  store = postgresAccounts(db.pool(), { schema: db.schema, tablePrefix: `r${tables}_` })
  await store.migrate()
})

const id = () => randomBytes(8).toString('hex')
const user = (changes: Partial<User> = {}): User => ({
  id: id(),
  name: 'Ada',
  email: null,
  emailVerified: null,
  image: null,
  createdAt: new Date('2024-05-01T10:00:00.123Z'),
  ...changes,
})
const account = (userId: string, changes: Partial<StoredAccount> = {}): StoredAccount => ({
  id: id(),
  userId,
  provider: 'github',
  issuer: '',
  subject: id(),
  type: 'oauth',
  label: 'ada',
  linkedAt: new Date('2024-05-01T10:00:00.456Z'),
  lastUsedAt: null,
  ...changes,
})

it('creates a user with an account and finds both', async () => {
  const ada = user({ email: 'Ada@Example.com', emailVerified: new Date('2024-05-01T10:00:00Z') })
  const first = account(ada.id)
  expect(await store.createUser(ada, first)).toEqual({ kind: 'created', user: ada, account: first })
  expect(await store.getUser(ada.id)).toEqual(ada)
  expect(await store.findAccount(first)).toEqual(first)
  expect(await store.findUserByVerifiedEmail('ada@EXAMPLE.com')).toEqual(ada)
})

it('creates a user alone when there is no account (a passkey sign-up)', async () => {
  const ada = user()
  expect(await store.createUser(ada, null)).toEqual({ kind: 'created', user: ada, account: null })
  expect(await store.getUser(ada.id)).toEqual(ada)
  expect(await store.listAccounts(ada.id)).toEqual([])
  const first = account(ada.id)
  expect(await store.linkAccount(first)).toEqual({ kind: 'linked', account: first })
  expect(await store.unlinkAccount(ada.id, first.id, 1)).toBe('unlinked')
})

it('never matches an unverified address', async () => {
  const ada = user({ email: 'ada@example.com' })
  await store.createUser(ada, account(ada.id))
  expect(await store.findUserByVerifiedEmail('ada@example.com')).toBeNull()
  const bob = user({ email: 'ADA@example.com' })
  expect((await store.createUser(bob, account(bob.id))).kind).toBe('created')
})

it('answers identityTaken, emailTaken and userExists, creating nothing', async () => {
  const ada = user({ email: 'ada@example.com', emailVerified: new Date() })
  const first = account(ada.id)
  await store.createUser(ada, first)
  const bob = user()
  expect(await store.createUser(bob, account(bob.id, { subject: first.subject }))).toEqual({
    kind: 'identityTaken',
    account: first,
  })
  const carol = user({ email: 'ADA@example.com', emailVerified: new Date() })
  expect(await store.createUser(carol, account(carol.id))).toEqual({ kind: 'emailTaken', user: ada })
  expect(await store.createUser({ ...user(), id: ada.id }, account(ada.id))).toEqual({ kind: 'userExists' })
  for (const nobody of [bob, carol]) expect(await store.getUser(nobody.id)).toBeNull()
  expect(await store.listAccounts(ada.id)).toEqual([first])
})

it('lets exactly one of many concurrent sign-ups with one identity create a user', async () => {
  const subject = id()
  const users = Array.from({ length: 8 }, () => user())
  const results = await Promise.all(users.map((u) => store.createUser(u, account(u.id, { subject }))))
  expect(results.filter((result) => result.kind === 'created')).toHaveLength(1)
  expect(results.filter((result) => result.kind === 'identityTaken')).toHaveLength(7)
})

it('lets exactly one of many concurrent sign-ups with one verified address create a user', async () => {
  const users = Array.from({ length: 8 }, (_, i) =>
    user({ email: i % 2 === 0 ? 'ada@x.org' : 'ADA@x.org', emailVerified: new Date() }),
  )
  const results = await Promise.all(users.map((u) => store.createUser(u, account(u.id))))
  expect(results.filter((result) => result.kind === 'created')).toHaveLength(1)
  expect(results.filter((result) => result.kind === 'emailTaken')).toHaveLength(7)
})

it('links, refuses a taken identity, and answers noUser for a user that is gone', async () => {
  const ada = user()
  const first = account(ada.id)
  await store.createUser(ada, first)
  const second = account(ada.id, { provider: 'email', subject: 'ada@example.com', type: 'email' })
  expect(await store.linkAccount(second)).toEqual({ kind: 'linked', account: second })
  expect(await store.linkAccount({ ...second, id: id() })).toEqual({ kind: 'identityTaken', account: second })
  expect(await store.linkAccount(account('nobody'))).toEqual({ kind: 'noUser' })
  expect(await store.listAccounts(ada.id)).toEqual([first, second].sort((a, b) => (a.id < b.id ? -1 : 1)))
})

it('lets exactly one of many concurrent links of one identity win', async () => {
  const users = Array.from({ length: 4 }, () => user())
  for (const u of users) await store.createUser(u, account(u.id))
  const subject = id()
  const results = await Promise.all(users.map((u) => store.linkAccount(account(u.id, { subject }))))
  expect(results.filter((result) => result.kind === 'linked')).toHaveLength(1)
})

it('unlinks, but never the last way in, even when two unlinks race', async () => {
  for (let round = 0; round < 5; round++) {
    const ada = user()
    const [first, second] = [account(ada.id), account(ada.id)]
    await store.createUser(ada, first)
    await store.linkAccount(second)
    const results = await Promise.all([
      store.unlinkAccount(ada.id, first.id, 0),
      store.unlinkAccount(ada.id, second.id, 0),
    ])
    expect(results.sort()).toEqual(['last', 'unlinked'])
    expect(await store.listAccounts(ada.id)).toHaveLength(1)
  }
})

it('counts ways in kept elsewhere, and answers missing for an account not the user’s', async () => {
  const [ada, bob] = [user(), user()]
  const first = account(ada.id)
  await store.createUser(ada, first)
  await store.createUser(bob, account(bob.id))
  expect(await store.unlinkAccount(ada.id, first.id, 0)).toBe('last')
  expect(await store.unlinkAccount(bob.id, first.id, 5)).toBe('missing')
  expect(await store.unlinkAccount('nobody', first.id, 5)).toBe('missing')
  expect(await store.unlinkAccount(ada.id, first.id, 1)).toBe('unlinked')
  expect(await store.listAccounts(ada.id)).toEqual([])
})

it('lists the first linked first, records a sign-in, and deletes a user with their accounts', async () => {
  const ada = user()
  const first = account(ada.id, { linkedAt: new Date('2024-01-02T00:00:00Z') })
  const earlier = account(ada.id, { linkedAt: new Date('2024-01-01T00:00:00Z') })
  await store.createUser(ada, first)
  await store.linkAccount(earlier)
  const at = new Date('2024-06-01T12:34:56.789Z')
  await store.touchAccount(ada.id, first.id, at)
  await store.touchAccount('nobody', earlier.id, at)
  expect(await store.listAccounts(ada.id)).toEqual([earlier, { ...first, lastUsedAt: at }])
  expect(await store.deleteUser(ada.id)).toBe(true)
  expect(await store.deleteUser(ada.id)).toBe(false)
  expect(await store.findAccount(first)).toBeNull()
  const again = user()
  expect((await store.createUser(again, { ...first, userId: again.id })).kind).toBe('created')
})
