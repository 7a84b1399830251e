import { Browser } from '../support/browser'
import { editUser } from '../support/idp'
import { idpLogin } from '../support/idp-login'
import {
  eventsSince,
  signedIn,
  signInAs,
  startAccounts,
  startSignIn,
  USERS,
  type AccountsHarness,
} from './accounts-harness'

// Issue 32's hostile IdP, with the real one: a provider that sends another user's VERIFIED address,
// an UNVERIFIED one, or a CHANGED `email` for a `sub` it sent before. Accounts are found by
// (provider, issuer, sub), never by the address: no link, no takeover. Alice is the victim; the IdP
// also has `mallory`, whose address it says is alice's and verified, and `eve`, who typed alice's
// address and was not checked.

let h: AccountsHarness
let alice: { browser: Browser; userId: string }
beforeAll(async () => {
  h = await startAccounts({
    idp: {
      users: [
        ...USERS,
        { accountId: 'mallory', name: 'Mallory', email: 'alice@example.com' },
        { accountId: 'eve', name: 'Eve', email: 'alice@example.com', emailVerified: false },
      ],
      editableUsers: true,
    },
  })
  alice = await signedIn(h, 'oidc', 'alice')
})
afterAll(() => h?.stop())

const NOT_LINKED = () => `${h.base}/error?error=OAuthAccountNotLinked`

describe("an IdP that sends another user's verified address", () => {
  it('gets no session and no user, whatever the provider; nothing is linked unless alice herself signs in there', async () => {
    const from = h.events.length
    const attacker = new Browser(h)
    for (const provider of ['oidc', 'second', 'plain']) {
      const res = await signInAs(h, attacker, provider, 'mallory')
      expect([provider, res.headers.get('location')]).toEqual([provider, NOT_LINKED()])
      expect(await attacker.session()).toEqual({})
    }
    expect(await h.store.findAccount({ provider: 'oidc', issuer: h.idp.issuer, subject: 'mallory' })).toBeNull()
    expect(eventsSince(h, from)).toEqual([])

    // The attacker signs in with a way in of his own in that browser: he is bob, and only bob.
    await signInAs(h, attacker, 'oidc', 'bob')
    const bob = (await h.whoami(attacker))!
    expect(bob).not.toBe(alice.userId)
    expect(await h.waysIn(bob)).toEqual(['oidc'])

    // Alice, in her own browser, is herself with her own way in.
    await signInAs(h, alice.browser, 'oidc', 'alice')
    expect(await h.whoami(alice.browser)).toBe(alice.userId)
    expect(await h.waysIn(alice.userId)).toEqual(['oidc'])
    expect(eventsSince(h, from).map(({ name }) => name)).toEqual(['userCreated'])
  })

  it("plants nothing in alice's browser when she opens the attacker's way back from the IdP", async () => {
    const attacker = new Browser(h)
    const started = await startSignIn(h, attacker, 'oidc')
    attacker.jar.clear(h.idp.issuer)
    const back = await idpLogin(new URL(started.headers.get('location')!), { jar: attacker.jar, login: 'mallory' })

    const res = await alice.browser.returnTo(back)
    // Its flow is the attacker's browser's: refused before any identity is looked at.
    expect(res.headers.get('location')).toBe(`${h.base}/error?error=OAuthCallback`)
    expect(alice.browser.cookie('auth.account-link')).toBeUndefined()
    expect(await h.whoami(alice.browser)).toBe(alice.userId)
    await signInAs(h, alice.browser, 'oidc', 'alice')
    expect(await h.waysIn(alice.userId)).toEqual(['oidc'])
  })
})

describe('an IdP that sends an unverified address', () => {
  it("makes a user of its own: alice's address links nothing and asks alice nothing", async () => {
    const from = h.events.length
    const browser = new Browser(h)
    expect((await signInAs(h, browser, 'oidc', 'eve')).headers.get('location')).toBe(`${h.origin}/welcome`)
    const eve = (await h.whoami(browser))!
    expect(eve).not.toBe(alice.userId)
    expect(await browser.session()).toMatchObject({ user: { name: 'Eve' } })
    expect(browser.cookie('auth.account-link')).toBeUndefined()
    expect(await h.router.getUser(eve)).toMatchObject({ emailVerified: null })
    expect(await h.waysIn(eve)).toEqual(['oidc'])
    expect(await h.waysIn(alice.userId)).toEqual(['oidc'])
    expect((await h.store.findUserByVerifiedEmail('alice@example.com'))?.id).toBe(alice.userId)
    expect(eventsSince(h, from)).toEqual([
      { name: 'userCreated', message: { provider: 'oidc', user: expect.objectContaining({ id: eve }) } },
    ])

    // Signing in again is eve again; another provider's unverified identity is a user of its own too.
    const again = new Browser(h)
    await signInAs(h, again, 'oidc', 'eve')
    expect(await h.whoami(again)).toBe(eve)
    await signInAs(h, again, 'plain', 'eve')
    const plain = (await h.whoami(again))!
    expect([plain === eve, plain === alice.userId]).toEqual([false, false])
    expect(await h.waysIn(alice.userId)).toEqual(['oidc'])
  })
})

describe('an IdP that changes the address of a sub it sent before', () => {
  afterEach(() => editUser(h.idp, 'carol', { email: 'carol@example.com', emailVerified: true }))

  it("is still that sub's user, with the address it had: neither alice's user nor her address", async () => {
    const carol = await signedIn(h, 'oidc', 'carol')
    const from = h.events.length

    for (const emailVerified of [true, false]) {
      await editUser(h.idp, 'carol', { email: 'alice@example.com', emailVerified })
      const browser = new Browser(h)
      expect((await signInAs(h, browser, 'oidc', 'carol')).headers.get('location')).toBe(`${h.origin}/welcome`)
      expect(await h.whoami(browser)).toBe(carol.userId)
      expect(await browser.session()).toMatchObject({ user: { email: 'carol@example.com' } })
      expect(browser.cookie('auth.account-link')).toBeUndefined()
    }
    expect(await h.router.getUser(carol.userId)).toMatchObject({ email: 'carol@example.com' })
    expect(await h.router.getUser(alice.userId)).toMatchObject({ email: 'alice@example.com' })
    expect(await h.waysIn(carol.userId)).toEqual(['oidc'])
    expect(await h.waysIn(alice.userId)).toEqual(['oidc'])
    expect(eventsSince(h, from)).toEqual([])

    // A new way in of that sub with alice's verified address waits for alice, whom carol cannot be.
    await editUser(h.idp, 'carol', { email: 'alice@example.com', emailVerified: true })
    const browser = new Browser(h)
    expect((await signInAs(h, browser, 'second', 'carol')).headers.get('location')).toBe(NOT_LINKED())
    await signInAs(h, browser, 'oidc', 'carol')
    expect(await h.whoami(browser)).toBe(carol.userId)
    expect(await h.waysIn(carol.userId)).toEqual(['oidc'])
    expect(await h.waysIn(alice.userId)).toEqual(['oidc'])
    expect(eventsSince(h, from)).toEqual([])
  })
})
