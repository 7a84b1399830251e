import { ConfigurationError, type SignInCallbackParams } from '../../lib'
import { Browser } from '../support/browser'
import { restoreClock, useClock } from '../support/clock'
import { startHarness } from '../support/oauth-harness'
import {
  eventsSince,
  follow,
  signedIn,
  signInAs,
  startAccounts,
  startSignIn,
  type AccountsHarness,
} from './accounts-harness'

// Issue 32's linking rules over HTTP, with the real IdP: a link the signed-in user asks for
// (`link=true`), only from a recent sign-in; an identity of another user is refused, never merged;
// the app's signIn callback choosing the user (adopting a legacy id); `signUp: false`; and nothing
// changes without `accounts`.

const REAUTH_TEXT = 'For your security, sign in again to continue.'
const ALREADY_LINKED_TEXT = 'That account is already linked to another user.'

/** What the app's signIn callback answers; null: it allows (true). */
let choose: ((params: SignInCallbackParams) => { userId: string }) | null = null

let h: AccountsHarness
beforeAll(async () => {
  h = await startAccounts({ signIn: (params) => choose?.(params) ?? true })
})
afterAll(() => h?.stop())
afterEach(() => {
  choose = null
  restoreClock()
})

/** Where a refused link sends the browser: the sign-in page with `error`, and back to `callbackUrl` afterwards. */
function signInPage(location: string | null) {
  const url = new URL(location ?? '')
  return {
    at: `${url.origin}${url.pathname}`,
    error: url.searchParams.get('error'),
    callbackUrl: url.searchParams.get('callbackUrl'),
  }
}

describe('link=true: a second way in for the signed-in user', () => {
  it('links with the form field: the same user and session after the IdP, both ways in listed, accountLinked; the new way in alone then signs in as that user', async () => {
    const { browser, userId } = await signedIn(h, 'oidc', 'alice')
    const before = await browser.session()
    const from = h.events.length

    const linked = await signInAs(h, browser, 'plain', 'alice', { fields: { link: 'true' } })
    expect(linked.headers.get('location')).toBe(`${h.origin}/welcome`)
    expect(await h.whoami(browser)).toBe(userId)
    expect(await browser.session()).toEqual({ ...before, expires: expect.any(String) })
    expect(await h.waysIn(userId)).toEqual(['oidc', 'plain'])
    expect(eventsSince(h, from)).toEqual([
      {
        name: 'accountLinked',
        message: {
          userId,
          account: {
            id: expect.any(String),
            provider: 'plain',
            type: 'oauth',
            label: 'alice@example.com',
            linkedAt: expect.any(Date),
            lastUsedAt: expect.any(Date),
          },
        },
      },
    ])
    expect(browser.cookie('auth.account-link')).toBeUndefined()

    const later = new Browser(h)
    expect((await signInAs(h, later, 'plain', 'alice')).headers.get('location')).toBe(`${h.origin}/welcome`)
    expect(await h.whoami(later)).toBe(userId)
    expect(await later.session()).toMatchObject({ user: { name: 'Alice Example', email: 'alice@example.com' } })
    expect(eventsSince(h, from)).toHaveLength(1)
  })

  it("links with the query parameter NextAuth's signIn(id, options, { link: 'true' }) sends", async () => {
    const { browser, userId } = await signedIn(h, 'oidc', 'bob')
    const from = h.events.length
    // The service's own parameter: the provider is not told that the user is linking.
    const started = await startSignIn(h, browser, 'second', { query: { link: 'true' } })
    expect(new URL(started.headers.get('location')!).searchParams.has('link')).toBe(false)
    const linked = await signInAs(h, browser, 'second', 'bob', { query: { link: 'true' } })
    expect(linked.headers.get('location')).toBe(`${h.origin}/welcome`)
    expect(await h.whoami(browser)).toBe(userId)
    expect(await h.waysIn(userId)).toEqual(['oidc', 'second'])
    expect(eventsSince(h, from)).toEqual([
      { name: 'accountLinked', message: { userId, account: expect.objectContaining({ provider: 'second' }) } },
    ])

    const later = new Browser(h)
    await signInAs(h, later, 'second', 'bob')
    expect(await h.whoami(later)).toBe(userId)
  })

  it('sends a session older than linkMaxAge to sign in again (the page says why), then links from the new sign-in', async () => {
    const { browser, userId } = await signedIn(h, 'oidc', 'carol')
    useClock(Math.floor(Date.now() / 1000) + 601)

    const refused = await startSignIn(h, browser, 'plain', { fields: { link: 'true' } })
    expect(refused.status).toBe(302)
    expect(signInPage(refused.headers.get('location'))).toEqual({
      at: `${h.base}/signin`,
      error: 'ReauthRequired',
      callbackUrl: `${h.origin}/welcome`,
    })
    const json = await startSignIn(h, browser, 'plain', { fields: { link: 'true', json: 'true' } })
    expect(json.status).toBe(401)
    expect(await json.json()).toEqual({ url: refused.headers.get('location') })
    expect(browser.cookie('auth.account-link')).toBeUndefined()
    expect(await h.whoami(browser)).toBe(userId)

    const page = await follow(browser, refused.headers.get('location')!)
    expect(page.status).toBe(200)
    expect(page.text).toContain(REAUTH_TEXT)

    // Signing in again makes a recent session: the link goes through.
    await signInAs(h, browser, 'oidc', 'carol')
    expect(await h.whoami(browser)).toBe(userId)
    const linked = await signInAs(h, browser, 'plain', 'carol', { fields: { link: 'true' } })
    expect(linked.headers.get('location')).toBe(`${h.origin}/welcome`)
    expect(await h.waysIn(userId)).toEqual(['oidc', 'plain'])
  })

  it('sends a browser without a session to sign in (SessionRequired), and starts nothing at the IdP', async () => {
    const browser = new Browser(h)
    const refused = await startSignIn(h, browser, 'plain', { query: { link: 'true' } })
    expect(refused.status).toBe(302)
    expect(signInPage(refused.headers.get('location'))).toEqual({
      at: `${h.base}/signin`,
      error: 'SessionRequired',
      callbackUrl: `${h.origin}/welcome`,
    })
    const json = await startSignIn(h, browser, 'plain', { query: { link: 'true' }, fields: { json: 'true' } })
    expect(json.status).toBe(401)
    expect(browser.flowCookies()).toEqual([])
    expect(browser.cookie('auth.account-link')).toBeUndefined()
    expect(await browser.session()).toEqual({})
  })
})

describe('a link abandoned at the IdP', () => {
  it("does not make the next sign-in without link=true a link: the browser signs in as the identity's own user", async () => {
    const heidi = await signedIn(h, 'second', 'heidi')
    // Heidi asks to link `plain`, and leaves at the IdP's login page.
    const asked = await startSignIn(h, heidi.browser, 'plain', { fields: { link: 'true' } })
    expect(new URL(asked.headers.get('location')!).origin).toBe(h.idp.issuer)

    // Then she signs in with `plain` as another person (no link asked): that is not heidi's way in.
    const from = h.events.length
    const switched = await signInAs(h, heidi.browser, 'plain', 'ivan')
    expect(switched.headers.get('location')).toBe(`${h.origin}/welcome`)
    expect(await h.waysIn(heidi.userId)).toEqual(['second'])
    expect(eventsSince(h, from, 'accountLinked')).toEqual([])
    const ivan = (await h.whoami(heidi.browser))!
    expect(ivan).not.toBe(heidi.userId)
    expect(await h.waysIn(ivan)).toEqual(['plain'])
  })
})

describe('AccountAlreadyLinked: an identity of another user is never moved', () => {
  it("refuses to link another user's identity: the signed-in user's session and both users' ways in unchanged", async () => {
    const dave = await signedIn(h, 'oidc', 'dave')
    const erin = await signedIn(h, 'oidc', 'erin')
    const before = await dave.browser.session()
    const from = h.events.length

    // Dave asks to link, and at the IdP signs in as erin: erin's oidc identity is erin's user's.
    const refused = await signInAs(h, dave.browser, 'oidc', 'erin', { fields: { link: 'true' } })
    expect(refused.headers.get('location')).toBe(`${h.base}/error?error=AccountAlreadyLinked`)
    const page = await follow(dave.browser, refused.headers.get('location')!)
    expect(page.url).toBe(`${h.base}/signin?error=AccountAlreadyLinked`)
    expect(page.text).toContain(ALREADY_LINKED_TEXT)

    expect(await h.whoami(dave.browser)).toBe(dave.userId)
    expect(await dave.browser.session()).toEqual({ ...before, expires: expect.any(String) })
    expect(await h.waysIn(dave.userId)).toEqual(['oidc'])
    expect(await h.waysIn(erin.userId)).toEqual(['oidc'])
    expect(await h.whoami(erin.browser)).toBe(erin.userId)
    expect(eventsSince(h, from)).toEqual([])
  })

  it('refuses the signIn callback answering { userId } of a user who does not own the identity, known or new', async () => {
    const dave = (await h.store.findAccount({ provider: 'oidc', issuer: h.idp.issuer, subject: 'dave' }))!
    const erin = (await h.store.findAccount({ provider: 'oidc', issuer: h.idp.issuer, subject: 'erin' }))!
    const from = h.events.length

    choose = () => ({ userId: dave.userId })
    const browser = new Browser(h)
    const refused = await signInAs(h, browser, 'oidc', 'erin')
    expect(refused.headers.get('location')).toBe(`${h.base}/error?error=AccountAlreadyLinked`)
    expect(await browser.session()).toEqual({})

    choose = () => ({ userId: 'legacy-7' })
    const again = await signInAs(h, browser, 'oidc', 'erin')
    expect(again.headers.get('location')).toBe(`${h.base}/error?error=AccountAlreadyLinked`)
    expect(await browser.session()).toEqual({})
    expect(await h.router.getUser('legacy-7')).toBeNull()

    expect(await h.waysIn(dave.userId)).toEqual(['oidc'])
    expect(await h.waysIn(erin.userId)).toEqual(['oidc'])
    expect(eventsSince(h, from)).toEqual([])
  })
})

describe("the signIn callback's { userId }: adopting an app's own user ids", () => {
  it('creates the user with that id and links the identity; later sign-ins are that user, whatever the callback answers', async () => {
    const from = h.events.length
    choose = ({ user }) => ({ userId: `legacy-${user.id}` })
    const first = new Browser(h)
    expect((await signInAs(h, first, 'oidc', 'frank')).headers.get('location')).toBe(`${h.origin}/welcome`)
    expect(await h.whoami(first)).toBe('legacy-frank')
    expect(await first.session()).toMatchObject({ user: { name: 'Frank Example', email: 'frank@example.com' } })
    expect(await h.router.getUser('legacy-frank')).toEqual({
      id: 'legacy-frank',
      name: 'Frank Example',
      email: 'frank@example.com',
      emailVerified: expect.any(Date),
      image: expect.any(String),
      createdAt: expect.any(Date),
    })
    expect(await h.waysIn('legacy-frank')).toEqual(['oidc'])
    expect(eventsSince(h, from).map(({ name, message }) => [name, message.provider])).toEqual([['userCreated', 'oidc']])

    // The app keeps answering while it migrates: the same user, nothing new.
    const second = new Browser(h)
    await signInAs(h, second, 'oidc', 'frank')
    expect(await h.whoami(second)).toBe('legacy-frank')
    // And once the callback no longer maps users, the identity still names the adopted user.
    choose = null
    const third = new Browser(h)
    await signInAs(h, third, 'oidc', 'frank')
    expect(await h.whoami(third)).toBe('legacy-frank')
    expect(await h.waysIn('legacy-frank')).toEqual(['oidc'])
    expect(eventsSince(h, from)).toHaveLength(1)
  })

  it('links a new identity to an adopted id that exists, and keeps the verified address of another user off a new one', async () => {
    const grace = await signedIn(h, 'oidc', 'grace')
    choose = ({ account }) => (account.provider === 'second' ? { userId: grace.userId } : { userId: 'legacy-g2' })
    const browser = new Browser(h)
    await signInAs(h, browser, 'second', 'grace')
    expect(await h.whoami(browser)).toBe(grace.userId)
    expect(await h.waysIn(grace.userId)).toEqual(['oidc', 'second'])

    // plain's grace@example.com is verified, and grace's user has it: legacy-g2 is made without it.
    await signInAs(h, browser, 'plain', 'grace')
    expect(await h.whoami(browser)).toBe('legacy-g2')
    expect(await h.router.getUser('legacy-g2')).toMatchObject({ email: null, emailVerified: null })
    expect((await h.router.getUser(grace.userId))?.email).toBe('grace@example.com')
  })
})

describe('signUp: false', () => {
  let closed: AccountsHarness
  beforeAll(async () => {
    closed = await startAccounts({ accounts: { signUp: false } })
  })
  afterAll(() => closed?.stop())

  it('refuses a new identity (AccessDenied, no user made); a known identity signs in, and may still link another', async () => {
    const now = new Date()
    const created = await closed.store.createUser(
      {
        id: 'imported-alice',
        name: 'Alice',
        email: 'alice@example.com',
        emailVerified: now,
        image: null,
        createdAt: now,
      },
      {
        id: 'imported-alice-oidc',
        userId: 'imported-alice',
        provider: 'oidc',
        issuer: closed.idp.issuer,
        subject: 'alice',
        type: 'oauth',
        label: 'alice@example.com',
        linkedAt: now,
        lastUsedAt: null,
      },
    )
    expect(created.kind).toBe('created')

    const stranger = new Browser(closed)
    const refused = await signInAs(closed, stranger, 'oidc', 'bob')
    expect(refused.headers.get('location')).toBe(`${closed.base}/error?error=AccessDenied`)
    const page = await follow(stranger, refused.headers.get('location')!)
    expect(page.status).toBe(403)
    expect(page.text).toContain('You do not have permission to sign in.')
    expect(await stranger.session()).toEqual({})
    expect(await closed.store.findAccount({ provider: 'oidc', issuer: closed.idp.issuer, subject: 'bob' })).toBeNull()

    const alice = new Browser(closed)
    expect((await signInAs(closed, alice, 'oidc', 'alice')).headers.get('location')).toBe(`${closed.origin}/welcome`)
    expect(await closed.whoami(alice)).toBe('imported-alice')
    await signInAs(closed, alice, 'plain', 'alice', { fields: { link: 'true' } })
    expect(await closed.waysIn('imported-alice')).toEqual(['oidc', 'plain'])
    expect(closed.events.map(({ name }) => name)).toEqual(['accountLinked'])
  })
})

describe('without accounts', () => {
  it('keeps the user id {provider}:{id}, and the account helpers say the option is missing', async () => {
    const plain = await startHarness()
    try {
      const browser = new Browser(plain)
      await browser.signIn('oidc')
      expect(plain.logs).toContainEqual(expect.objectContaining({ event: 'session.created', userId: 'oidc:alice' }))
      await expect(plain.router.listAccounts('oidc:alice')).rejects.toThrow(ConfigurationError)
      await expect(plain.router.getUser('oidc:alice')).rejects.toThrow(ConfigurationError)
    } finally {
      await plain.stop()
    }
  })
})
