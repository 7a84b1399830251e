/**
 * A password account's hash stays in the store: accountInfo() drops it, and no event, helper,
 * answer or log line of the accounts feature carries it, even when every account the store keeps
 * has one (the store below gives each a hash as it keeps it).
 */
import { memoryAccounts, type AccountStore } from '../../lib'
import { accountInfo } from '../../lib/features/accounts/runtime'
import { sampleAccount, sampleHash } from '../../lib/testing/account-samples'
import { signedIn, signInAs, startAccounts, type AccountsHarness } from './accounts-harness'

const HASH = sampleHash()

/** memoryAccounts(), where every account created or linked carries HASH. */
function hashingStore(): AccountStore {
  const inner = memoryAccounts()
  return {
    ...inner,
    createUser: (user, account) => inner.createUser(user, account && { ...account, passwordHash: HASH }),
    linkAccount: (account) => inner.linkAccount({ ...account, passwordHash: HASH }),
  }
}

let h: AccountsHarness
beforeAll(async () => {
  h = await startAccounts({ store: hashingStore() })
})
afterAll(() => h?.stop())

it('accountInfo() gives the six fields the app reads, and no hash', () => {
  const info = accountInfo(sampleAccount('u', { type: 'credentials', passwordHash: HASH }))
  expect(Object.keys(info).sort()).toEqual(['id', 'label', 'lastUsedAt', 'linkedAt', 'provider', 'type'])
})

it('no event, helper, answer or log line hands the app a hash, through sign-up, link, sign-in, unlink and erasure', async () => {
  const seen: unknown[] = []
  const { browser, userId } = await signedIn(h, 'oidc', 'alice')
  await signInAs(h, browser, 'plain', 'alice', { fields: { link: 'true' } })
  await browser.signOut()
  await signInAs(h, browser, 'oidc', 'alice')
  // The store does hold a hash on each: what follows reads accounts that have one.
  expect((await h.store.listAccounts(userId)).map(({ passwordHash }) => passwordHash)).toEqual([HASH, HASH])

  seen.push(await browser.session(), await h.router.getUser(userId), await h.router.listAccounts(userId))
  const plain = await h.wayIn(userId, 'plain')
  const unlinked = await browser.jar.fetch(`${h.base}/unlink`, {
    method: 'POST',
    body: new URLSearchParams({ csrfToken: await browser.csrfToken(), accountId: plain.id, json: 'true' }),
  })
  expect(unlinked.status).toBe(200)
  seen.push(await unlinked.text())
  const [oidc] = await h.router.listAccounts(userId)
  await expect(h.router.unlinkAccount(userId, oidc!.id)).rejects.toMatchObject({ code: 'LastSignInMethod' })
  seen.push(await h.router.deleteUser(userId))

  expect(h.events.map(({ name }) => name)).toEqual(['userCreated', 'accountLinked', 'accountUnlinked', 'userDeleted'])
  const everything = JSON.stringify([seen, h.events, h.logs])
  expect(everything).not.toContain(HASH)
  expect(everything).not.toMatch(/passwordHash|password_hash/)
})
