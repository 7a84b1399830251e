import { Browser } from '../support/browser'
import { restoreClock, useClock } from '../support/clock'
import { eventsSince, follow, signedIn, signInAs, startAccounts, type AccountsHarness } from './accounts-harness'

// The confirm path of issue 32, over HTTP with the real IdP: a new identity whose provider verified
// an address that an existing user has makes no session (OAuthAccountNotLinked); it waits in a
// sealed cookie, for ten minutes, for that very user to sign in in the same browser with a way in
// they already have. `dangerouslyLinkByEmail` links at once instead. (`oidc` and `second` are two
// clients of one IdP: the same person, two identities.)

const NOT_LINKED_TEXT = 'To confirm your identity, sign in with the same account you used originally.'

let h: AccountsHarness
beforeAll(async () => {
  h = await startAccounts()
})
afterAll(() => h?.stop())
afterEach(restoreClock)

describe('a new identity with the verified address of an existing user', () => {
  it('makes no session and asks to sign in with the way in the user has; that sign-in links it', async () => {
    const alice = await signedIn(h, 'oidc', 'alice')
    const from = h.events.length

    const browser = new Browser(h)
    const refused = await signInAs(h, browser, 'second', 'alice')
    expect(refused.status).toBe(302)
    expect(refused.headers.get('location')).toBe(`${h.base}/error?error=OAuthAccountNotLinked`)
    const page = await follow(browser, refused.headers.get('location')!)
    expect(page.url).toBe(`${h.base}/signin?error=OAuthAccountNotLinked`)
    expect(page.status).toBe(200)
    expect(page.text).toContain(NOT_LINKED_TEXT)
    expect(await browser.session()).toEqual({})
    expect(await h.whoami(browser)).toBeNull()
    expect(await h.waysIn(alice.userId)).toEqual(['oidc'])

    // The pending identity is in a sealed cookie that lives ten minutes at most: nothing in it can be read.
    const line = refused.headers.getSetCookie().find((cookie) => cookie.startsWith('auth.account-link='))!
    expect(line).toMatch(/; HttpOnly/)
    expect(line).toMatch(/; SameSite=Lax/)
    const maxAge = Number(/; Max-Age=(\d+)/.exec(line)?.[1])
    expect(maxAge).toBeGreaterThan(0)
    expect(maxAge).toBeLessThanOrEqual(600)
    const sealed = browser.cookie('auth.account-link')!.value
    for (const readable of ['alice', 'second', alice.userId, h.idp.issuer.slice('http://'.length)])
      expect(sealed).not.toContain(readable)
    expect(eventsSince(h, from)).toEqual([])

    // Alice signs in with the way in she has, in that browser: the identity is hers now.
    const confirmed = await signInAs(h, browser, 'oidc', 'alice')
    expect(confirmed.headers.get('location')).toBe(`${h.origin}/welcome`)
    expect(await h.whoami(browser)).toBe(alice.userId)
    expect(await h.waysIn(alice.userId)).toEqual(['oidc', 'second'])
    expect(eventsSince(h, from)).toEqual([
      {
        name: 'accountLinked',
        message: {
          userId: alice.userId,
          account: expect.objectContaining({ provider: 'second', type: 'oauth', label: 'alice@example.com' }),
        },
      },
    ])
    expect(browser.cookie('auth.account-link')).toBeUndefined()

    // From now on `second` alone signs in as alice, in any browser.
    const elsewhere = new Browser(h)
    expect((await signInAs(h, elsewhere, 'second', 'alice')).headers.get('location')).toBe(`${h.origin}/welcome`)
    expect(await h.whoami(elsewhere)).toBe(alice.userId)
    expect(eventsSince(h, from)).toHaveLength(1)
  })

  it('links nothing when another user signs in in that browser, and the pending identity is gone for good', async () => {
    const bob = await signedIn(h, 'oidc', 'bob')
    const carol = await signedIn(h, 'oidc', 'carol')
    const from = h.events.length

    const browser = new Browser(h)
    const refused = await signInAs(h, browser, 'second', 'bob')
    expect(refused.headers.get('location')).toBe(`${h.base}/error?error=OAuthAccountNotLinked`)
    expect(browser.cookie('auth.account-link')).toBeDefined()

    // Carol signs in there: she is carol, with her own ways in; bob's pending identity is not hers.
    await signInAs(h, browser, 'oidc', 'carol')
    expect(await h.whoami(browser)).toBe(carol.userId)
    expect(await h.waysIn(carol.userId)).toEqual(['oidc'])
    expect(browser.cookie('auth.account-link')).toBeUndefined()
    // Nor does bob's next sign-in in that browser link it: the cookie ended with carol's sign-in.
    await browser.signOut()
    await signInAs(h, browser, 'oidc', 'bob')
    expect(await h.whoami(browser)).toBe(bob.userId)
    expect(await h.waysIn(bob.userId)).toEqual(['oidc'])
    expect(eventsSince(h, from)).toEqual([])

    // `second` as bob still takes the confirm path: no user was made for it meanwhile.
    const again = await signInAs(h, new Browser(h), 'second', 'bob')
    expect(again.headers.get('location')).toBe(`${h.base}/error?error=OAuthAccountNotLinked`)
    expect(eventsSince(h, from)).toEqual([])
  })

  it('forgets the pending identity after ten minutes, even when the browser sends the cookie again', async () => {
    const dave = await signedIn(h, 'oidc', 'dave')
    const browser = new Browser(h)
    await signInAs(h, browser, 'second', 'dave')
    const pending = browser.cookie('auth.account-link')!

    useClock(Math.floor(Date.now() / 1000) + 601)
    expect(browser.cookie('auth.account-link')).toBeUndefined()
    // A browser that keeps the cookie longer than it was told (or a copy of it) gains nothing.
    browser.jar.set(h.origin, `auth.account-link=${pending.value}; Path=/; HttpOnly; SameSite=Lax`)
    expect((await signInAs(h, browser, 'oidc', 'dave')).headers.get('location')).toBe(`${h.origin}/welcome`)
    expect(await h.whoami(browser)).toBe(dave.userId)
    expect(await h.waysIn(dave.userId)).toEqual(['oidc'])
  })

  it('does the same for a plain OAuth 2 provider whose userinfo says the address is verified', async () => {
    const erin = await signedIn(h, 'oidc', 'erin')
    const browser = new Browser(h)
    const refused = await signInAs(h, browser, 'plain', 'erin')
    expect(refused.headers.get('location')).toBe(`${h.base}/error?error=OAuthAccountNotLinked`)
    await signInAs(h, browser, 'oidc', 'erin')
    expect(await h.waysIn(erin.userId)).toEqual(['oidc', 'plain'])
  })
})

describe('dangerouslyLinkByEmail', () => {
  let trusting: AccountsHarness
  beforeAll(async () => {
    trusting = await startAccounts({ accounts: { dangerouslyLinkByEmail: ['second'] } })
  })
  afterAll(() => trusting?.stop())

  it('links a listed provider at once, said at start-up; the others still take the confirm path', async () => {
    expect(trusting.logs).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        event: 'config.warning',
        message: expect.stringContaining('`accounts.dangerouslyLinkByEmail` includes second'),
      }),
    )
    const alice = await signedIn(trusting, 'oidc', 'alice')
    const from = trusting.events.length

    const browser = new Browser(trusting)
    const res = await signInAs(trusting, browser, 'second', 'alice')
    expect(res.headers.get('location')).toBe(`${trusting.origin}/welcome`)
    expect(await trusting.whoami(browser)).toBe(alice.userId)
    expect(await browser.session()).toMatchObject({ user: { name: 'Alice Example', email: 'alice@example.com' } })
    expect(await trusting.waysIn(alice.userId)).toEqual(['oidc', 'second'])
    expect(eventsSince(trusting, from)).toEqual([
      {
        name: 'accountLinked',
        message: { userId: alice.userId, account: expect.objectContaining({ provider: 'second' }) },
      },
    ])
    expect(browser.cookie('auth.account-link')).toBeUndefined()

    const other = new Browser(trusting)
    const refused = await signInAs(trusting, other, 'plain', 'alice')
    expect(refused.headers.get('location')).toBe(`${trusting.base}/error?error=OAuthAccountNotLinked`)
  })
})
