import { memoryAccounts } from '../../lib/features/accounts/memory-store'
import type { AccountStore } from '../../lib/features/accounts/store'
import { Browser } from '../support/browser'
import { startHarness, type Harness } from '../support/oauth-harness'

let h: Harness
let store: AccountStore
beforeAll(async () => {
  store = memoryAccounts()
  h = await startHarness({ accounts: store })
})
afterAll(() => h?.stop())

function lastUserId(): string {
  const created = h.logs.filter((entry) => entry.event === 'session.created')
  return String(created.at(-1)?.userId)
}

describe('accounts over HTTP with the real IdP', () => {
  it('signs up, then the same identity signs in as the same user; a second provider with the same verified address takes the confirm path', async () => {
    const browser = new Browser(h)
    expect((await browser.signIn('oidc')).headers.get('location')).toBe(`${h.origin}/welcome`)
    const first = lastUserId()
    expect(first).not.toMatch(/^oidc:/)
    await browser.signOut()
    await browser.signIn('oidc')
    expect(lastUserId()).toBe(first)

    const other = new Browser(h)
    const refused = await other.signIn('second')
    expect(refused.headers.get('location')).toBe(`${h.base}/error?error=OAuthAccountNotLinked`)
    expect(await other.session()).toEqual({})
    await other.signIn('oidc')
    expect(lastUserId()).toBe(first)
    const accounts = await store.listAccounts(first)
    expect(accounts.map((account) => account.provider).sort()).toEqual(['oidc', 'second'])
    await other.signOut()
    await other.signIn('second')
    expect(lastUserId()).toBe(first)
  })
})
