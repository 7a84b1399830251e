import type { Request } from 'express'
import { randomBytes } from 'node:crypto'
import {
  memoryAccounts,
  postgresAccounts,
  redisAccounts,
  type AccountStore,
  type AuthRouter,
  type User,
} from '../../lib'
import { buildCookieSet } from '../../lib/infra/config/cookies'
import { Browser } from '../support/browser'
import { restoreClock, useClock } from '../support/clock'
import { requestLink, useLink } from '../support/email-harness'
import { startHostileHarness, type HostileHarness } from '../support/hostile-harness'
import { editUser } from '../support/idp'
import { idpLogin } from '../support/idp-login'
import {
  passkeySignIn,
  registerPasskey,
  signInByEmail,
  startPasskeyService,
  type PasskeyService,
} from '../support/passkey-harness'
import { postgresForFile } from '../support/postgres'
import { sharedRedis, type SharedRedis } from '../support/redis'
import { SoftAuthenticator } from '../support/soft-authenticator'
import {
  signedIn,
  signInAs,
  startAccounts,
  startSignIn,
  USERS,
  type AccountsHarness,
} from '../accounts/accounts-harness'

// An outsider's attacks on accounts: taking over or polluting another user's account
// through linking, and making a request fail with a 5xx. Each test is one attack, over HTTP with
// the real IdP (the hostile issuer where a claim no real IdP sends is needed), and passes when the
// defence holds: nobody gets into an account that is not theirs, nothing is linked that its user
// did not ask for, every user keeps a way in, erasure leaves nothing that signs in, and hostile
// values are refused or kept as they are, never a 500 or a 503 from a healthy store.

const db = postgresForFile('attack_32')
let redis: SharedRedis
beforeAll(async () => {
  redis = await sharedRedis()
})
afterAll(() => redis?.close())
afterEach(restoreClock)

/** The user id of `browser`'s session at `service`, as the app reads it; null when signed out. */
async function userOf(service: { origin: string; router: AuthRouter }, browser: Browser): Promise<string | null> {
  const cookie = browser.jar.header(new URL(service.origin)) ?? ''
  return (await service.router.getSessionRecord({ headers: { cookie } } as Request))?.userId ?? null
}

/** The providers of the user's ways in, the first linked first. */
async function waysIn(service: { router: AuthRouter }, userId: string): Promise<string[]> {
  return (await service.router.listAccounts(userId)).map((way) => `${way.provider}:${way.label}`)
}

/** POST {base}/unlink with the CSRF token, as an account page posts it. */
async function postUnlink(service: { base: string }, browser: Browser, fields: Record<string, string>) {
  const body = new URLSearchParams({ csrfToken: await browser.csrfToken(), callbackUrl: '/account', ...fields })
  return browser.jar.fetch(`${service.base}/unlink`, { method: 'POST', body })
}

describe('e-mail links and passkeys', () => {
  let s: PasskeyService
  beforeAll(async () => {
    s = await startPasskeyService({}, { accounts: memoryAccounts() })
  })
  afterAll(() => s?.close())

  /** POST /signin/email with link=true from `browser`'s session: a link to `address` is mailed. */
  async function askToLink(browser: Browser, address: string): Promise<void> {
    const body = new URLSearchParams({
      email: address,
      csrfToken: await browser.csrfToken(),
      callbackUrl: '/welcome',
      link: 'true',
    })
    const res = await browser.jar.fetch(`${s.base}/signin/email`, { method: 'POST', body })
    expect(res.headers.get('location')).toBe(`${s.base}/verify-request?provider=email&type=email`)
  }

  /** A user signed in by e-mail, and a passkey added: two ways in. */
  async function withPasskey(address: string) {
    const browser = new Browser(s)
    await signInByEmail(s, browser, address)
    const authenticator = new SoftAuthenticator(s.origin)
    expect((await registerPasskey(s, browser, authenticator)).status).toBe(200)
    return { browser, userId: (await userOf(s, browser))!, authenticator }
  }

  it("links only the address the user asked to link: another address's sign-in link opened meanwhile is not linked", async () => {
    const victim = new Browser(s)
    await signInByEmail(s, victim, 'victim@example.com')
    const victimId = (await userOf(s, victim))!
    // The attacker asks for a sign-in link to a fresh address of theirs, in their own browser.
    await requestLink(s, new Browser(s), 'mallory@evil.example')
    const attackersLink = s.links.at(-1)!

    // The victim asks to link a second address; before that mail comes, the attacker's link is
    // opened in the victim's browser (a mail or a page that looks like the one awaited).
    await askToLink(victim, 'victim2@example.com')
    await useLink(s, victim, attackersLink)

    expect(await waysIn(s, victimId)).toEqual(['email:victim@example.com'])
    const attacker = new Browser(s)
    await signInByEmail(s, attacker, 'mallory@evil.example')
    expect(await userOf(s, attacker)).not.toBe(victimId)
  })

  it('still links the address asked for, however its case and spaces were typed', async () => {
    const browser = new Browser(s)
    await signInByEmail(s, browser, 'owner@example.com')
    const userId = (await userOf(s, browser))!
    await askToLink(browser, ' Owner.Second@Example.COM ')
    await useLink(s, browser, s.links.at(-1)!)
    expect(await waysIn(s, userId)).toEqual(['email:owner@example.com', 'email:owner.second@example.com'])
    expect(await userOf(s, browser)).toBe(userId)
  })

  it("refuses to unlink another user's passkey by its id (Default, 404 in JSON mode); it still signs in", async () => {
    const victim = await withPasskey('pk-victim@example.com')
    const attacker = await withPasskey('pk-attacker@example.com')
    const [passkey] = await s.router.listPasskeys(victim.userId)

    const res = await postUnlink(s, attacker.browser, { accountId: passkey!.id })
    expect(res.headers.get('location')).toBe(`${s.base}/error?error=Default`)
    const json = await postUnlink(s, attacker.browser, { accountId: passkey!.id, json: 'true' })
    expect(json.status).toBe(404)
    expect(await s.router.unlinkAccount(attacker.userId, passkey!.id)).toBe(false)
    expect(await waysIn(s, victim.userId)).toHaveLength(2)
    expect((await passkeySignIn(s, new Browser(s), victim.authenticator)).session).toBe(true)
  })

  /**
   * Every way in of the user unlinked at once by router.unlinkAccount: each answers true or
   * LastSignInMethod, and the ways left are the ones not unlinked, one at least.
   */
  async function unlinkAllAtOnce(userId: string, ids: string[]): Promise<void> {
    const answers = await Promise.allSettled(ids.map((id) => s.router.unlinkAccount(userId, id)))
    for (const answer of answers)
      if (answer.status === 'rejected') expect(answer.reason).toMatchObject({ code: 'LastSignInMethod' })
      else expect(answer.value).toBe(true)
    const unlinked = answers.filter((answer) => answer.status === 'fulfilled').length
    const left = await s.router.listAccounts(userId)
    expect(left.length).toBeGreaterThanOrEqual(1)
    expect(left.length).toBe(ids.length - unlinked)
  }

  it('keeps one way in when router.unlinkAccount removes the account and the passkey at once', async () => {
    const { userId } = await withPasskey('race-helper@example.com')
    await unlinkAllAtOnce(
      userId,
      (await s.router.listAccounts(userId)).map(({ id }) => id),
    )
  })

  it('keeps one way in when two passkeys, the only ways in, are unlinked at once', async () => {
    const { browser, userId } = await withPasskey('race-passkeys@example.com')
    expect((await registerPasskey(s, browser, new SoftAuthenticator(s.origin))).status).toBe(200)
    const email = (await s.router.listAccounts(userId)).find((way) => way.provider === 'email')!
    expect(await s.router.unlinkAccount(userId, email.id)).toBe(true)
    const passkeys = await s.router.listPasskeys(userId)
    expect(passkeys).toHaveLength(2)
    await unlinkAllAtOnce(
      userId,
      passkeys.map(({ id }) => id),
    )
  })

  it('deleteUser ends every session and passkey of the user; the address signs up as a new user', async () => {
    const { browser, userId, authenticator } = await withPasskey('erased@example.com')
    const other = new Browser(s)
    await signInByEmail(s, other, 'erased@example.com')
    expect(await userOf(s, other)).toBe(userId)

    expect(await s.router.deleteUser(userId)).toBe(true)
    expect(await userOf(s, browser)).toBeNull()
    expect(await userOf(s, other)).toBeNull()
    expect(await s.router.listPasskeys(userId)).toEqual([])
    expect((await passkeySignIn(s, new Browser(s), authenticator)).session).toBe(false)
    expect(await s.router.getUser(userId)).toBeNull()
    const again = new Browser(s)
    await signInByEmail(s, again, 'erased@example.com')
    expect(await userOf(s, again)).not.toBe(userId)
  })

  it('refuses a passkey sign-in whose signIn callback names another user than its owner', async () => {
    const owner = await withPasskey('pk-owner@example.com')
    const intruder = new Browser(s)
    await signInByEmail(s, intruder, 'pk-intruder@example.com')
    const intruderId = (await userOf(s, intruder))!
    const chooser = await startPasskeyService(
      {},
      { accounts: memoryAccounts(), callbacks: { signIn: () => ({ userId: intruderId }) } },
    )
    try {
      const answer = await passkeySignIn(chooser, new Browser(chooser), owner.authenticator)
      expect(answer.session).toBe(false)
    } finally {
      await chooser.close()
    }
  })
})

describe('erasure with passkeys in Redis', () => {
  it('leaves no passkey of a deleted user behind, however many they added', async () => {
    const prefix = redis.prefix('attack32')
    const s = await startPasskeyService(
      {},
      { accounts: memoryAccounts(), redis: redis.client(), redisKeyPrefix: prefix },
    )
    try {
      const browser = new Browser(s)
      await signInByEmail(s, browser, 'many@example.com')
      const userId = (await userOf(s, browser))!
      // More passkeys than one listing of the Redis passkey store reads (100).
      const authenticators: SoftAuthenticator[] = []
      for (let i = 0; i < 102; i++) {
        const authenticator = new SoftAuthenticator(s.origin)
        expect((await registerPasskey(s, browser, authenticator)).status).toBe(200)
        authenticators.push(authenticator)
      }
      expect(await s.router.deleteUser(userId)).toBe(true)

      const signedInAgain = []
      for (const authenticator of authenticators)
        if ((await passkeySignIn(s, new Browser(s), authenticator)).session) signedInAgain.push(authenticator)
      expect(signedInAgain).toHaveLength(0)
      expect(await s.router.getUser(userId)).toBeNull()
    } finally {
      await s.close()
      await redis.deleteKeys(prefix)
    }
  }, 60_000)
})

describe('with the real IdP', () => {
  let h: AccountsHarness
  beforeAll(async () => {
    h = await startAccounts({
      idp: {
        users: [
          ...USERS,
          { accountId: 'mallory', name: 'Mallory', email: 'mallory@evil.example' },
          { accountId: 'trudy', name: 'Trudy', email: 'trudy@evil.example' },
        ],
        editableUsers: true,
      },
    })
  })
  afterAll(() => h?.stop())
  afterEach(async () => {
    await editUser(h.idp, 'mallory', { email: 'mallory@evil.example', emailVerified: true })
    await editUser(h.idp, 'trudy', { email: 'trudy@evil.example', emailVerified: true })
  })

  describe('pre-account takeover', () => {
    it("an attacker who signed up first with the victim's unverified address gets nothing of the victim's account", async () => {
      await editUser(h.idp, 'mallory', { email: 'alice@example.com', emailVerified: false })
      const mallory = await signedIn(h, 'oidc', 'mallory')
      const alice = await signedIn(h, 'second', 'alice')
      expect(alice.userId).not.toBe(mallory.userId)
      expect(await h.waysIn(alice.userId)).toEqual(['second'])
      expect(await h.router.getUser(alice.userId)).toMatchObject({ email: 'alice@example.com' })
      expect((await h.router.getUser(alice.userId))?.emailVerified).toBeInstanceOf(Date)
      expect((await h.router.getUser(mallory.userId))?.emailVerified).toBeNull()
      // The attacker's later sign-ins stay in their own account.
      const later = await signedIn(h, 'oidc', 'mallory')
      expect(later.userId).toBe(mallory.userId)
      expect(await h.waysIn(mallory.userId)).toEqual(['oidc'])
    })

    it("an attacker whose IdP vouched for the victim's address first holds no way into the victim's sign-ins", async () => {
      await editUser(h.idp, 'trudy', { email: 'bob@example.com', emailVerified: true })
      const trudy = await signedIn(h, 'plain', 'trudy')
      // Bob arrives with an identity of his own: his address is another user's, so no session.
      const bob = new Browser(h)
      const refused = await signInAs(h, bob, 'oidc', 'bob')
      expect(refused.headers.get('location')).toBe(`${h.base}/error?error=OAuthAccountNotLinked`)
      expect(await h.whoami(bob)).toBeNull()
      // The attacker signs in as themself, anywhere: bob's identity is not linked to them.
      await signInAs(h, new Browser(h), 'plain', 'trudy')
      expect(await h.waysIn(trudy.userId)).toEqual(['plain'])
    })
  })

  describe('the confirm path', () => {
    it("is not started in the victim's browser by the attacker's callback URL (login CSRF)", async () => {
      const carol = await signedIn(h, 'oidc', 'carol')
      await editUser(h.idp, 'mallory', { email: 'carol@example.com', emailVerified: true })
      // The attacker goes through the IdP in their own browser and keeps the way back instead of following it.
      const attacker = new Browser(h)
      const started = await startSignIn(h, attacker, 'second')
      attacker.jar.clear(h.idp.issuer)
      const callback = await idpLogin(new URL(started.headers.get('location')!), {
        jar: attacker.jar,
        login: 'mallory',
      })
      const opened = await carol.browser.returnTo(callback)
      expect(opened.headers.get('location')).toBe(`${h.base}/error?error=OAuthCallback`)
      expect(carol.browser.cookie('auth.account-link')).toBeUndefined()
      await signInAs(h, carol.browser, 'oidc', 'carol')
      expect(await h.waysIn(carol.userId)).toEqual(['oidc'])
    })

    it('takes no value sealed for another purpose, nor its own value as a session, and never answers 5xx', async () => {
      const dave = await signedIn(h, 'oidc', 'dave')
      await editUser(h.idp, 'mallory', { email: 'dave@example.com', emailVerified: true })
      const attacker = new Browser(h)
      await signInAs(h, attacker, 'second', 'mallory')
      const pending = attacker.cookie('auth.account-link')!.value
      const session = dave.browser.cookie('auth.session-token')!.value
      const csrf = dave.browser.cookie('auth.csrf-token')!.value

      for (const value of [session, csrf, 'x', `${pending}x`, pending.slice(0, -4)]) {
        const browser = new Browser(h)
        browser.jar.set(h.origin, `auth.account-link=${value}; Path=/`)
        const res = await signInAs(h, browser, 'oidc', 'dave')
        expect(res.headers.get('location')).toBe(`${h.origin}/welcome`)
      }
      expect(await h.waysIn(dave.userId)).toEqual(['oidc'])
      const forged = new Browser(h)
      forged.jar.set(h.origin, `auth.session-token=${pending}; Path=/`)
      expect(await h.whoami(forged)).toBeNull()
      expect((await forged.jar.fetch(`${h.base}/session`)).status).toBe(200)
    })

    it('is a __Host- cookie on https, which a sibling subdomain cannot plant', () => {
      expect(buildCookieSet(true, {}, false).accountLink.name).toBe('__Host-auth.account-link')
    })
  })

  describe('link=true', () => {
    it("links nothing from a link cookie of another user's request replayed in the victim's browser", async () => {
      const attacker = await signedIn(h, 'oidc', 'mallory')
      await startSignIn(h, attacker.browser, 'second', { fields: { link: 'true' } })
      const sealed = attacker.browser.cookie('auth.account-link')!.value
      const erin = await signedIn(h, 'oidc', 'erin')
      erin.browser.jar.set(h.origin, `auth.account-link=${sealed}; Path=/`)
      // Erin's own sign-in with `second`, whose start would have ended the link, is skipped: the
      // cookie is there when her callback comes.
      const started = await startSignIn(h, erin.browser, 'second')
      erin.browser.jar.set(h.origin, `auth.account-link=${sealed}; Path=/`)
      erin.browser.jar.clear(h.idp.issuer)
      await erin.browser.returnTo(
        await idpLogin(new URL(started.headers.get('location')!), { jar: erin.browser.jar, login: 'erin' }),
      )
      expect(await h.waysIn(attacker.userId)).toEqual(['oidc'])
    })

    it('starts no link from a GET, a cross-site POST or a POST without the CSRF token (JSON mode too)', async () => {
      const frank = await signedIn(h, 'oidc', 'frank')
      const get = await frank.browser.jar.fetch(`${h.base}/signin/second?link=true`)
      expect(get.status).toBeGreaterThanOrEqual(400)
      expect(get.status).toBeLessThan(500)
      const body = () => new URLSearchParams({ link: 'true', callbackUrl: '/welcome' })
      const crossSite = await frank.browser.jar.fetch(
        `${h.base}/signin/second?link=true`,
        { method: 'POST', body: body(), headers: { origin: 'https://evil.example' } },
        { crossSite: true },
      )
      const noToken = await frank.browser.jar.fetch(`${h.base}/signin/second`, { method: 'POST', body: body() })
      const json = await frank.browser.jar.fetch(`${h.base}/signin/second?link=true&json=true`, {
        method: 'POST',
        body: new URLSearchParams({ json: 'true', csrfToken: 'forged' }),
      })
      for (const res of [crossSite, noToken, json]) {
        expect(res.status).toBeLessThan(500)
        expect(new URL(res.headers.get('location') ?? h.base, h.base).origin).not.toBe(h.idp.issuer)
      }
      expect(frank.browser.cookie('auth.account-link')).toBeUndefined()
    })

    it('links nothing once the user who asked signed out, or after the link cookie expired', async () => {
      const grace = await signedIn(h, 'oidc', 'grace')
      const started = await startSignIn(h, grace.browser, 'second', { fields: { link: 'true' } })
      expect(grace.browser.cookie('auth.account-link')).toBeDefined()
      await grace.browser.signOut()
      grace.browser.jar.clear(h.idp.issuer)
      const answer = await grace.browser.returnTo(
        await idpLogin(new URL(started.headers.get('location')!), { jar: grace.browser.jar, login: 'grace' }),
      )
      expect(answer.headers.get('location')).toBe(`${h.base}/error?error=OAuthAccountNotLinked`)
      expect(await h.waysIn(grace.userId)).toEqual(['oidc'])

      const heidi = await signedIn(h, 'oidc', 'heidi')
      await startSignIn(h, heidi.browser, 'second', { fields: { link: 'true' } })
      const sealed = heidi.browser.cookie('auth.account-link')!.value
      useClock(Math.floor(Date.now() / 1000) + 15 * 60 + 1)
      const late = await startSignIn(h, heidi.browser, 'second')
      heidi.browser.jar.set(h.origin, `auth.account-link=${sealed}; Path=/`)
      heidi.browser.jar.clear(h.idp.issuer)
      await heidi.browser.returnTo(
        await idpLogin(new URL(late.headers.get('location')!), { jar: heidi.browser.jar, login: 'heidi' }),
      )
      expect(await h.waysIn(heidi.userId)).toEqual(['oidc'])
    })
  })

  describe('POST /unlink', () => {
    it("answers Default for another user's account id and for prototype keys, and removes nothing", async () => {
      const ivan = await signedIn(h, 'oidc', 'ivan')
      await signInAs(h, ivan.browser, 'plain', 'ivan', { fields: { link: 'true' } })
      const attacker = await signedIn(h, 'oidc', 'trudy')
      const plain = await h.wayIn(ivan.userId, 'plain')
      for (const accountId of [plain.id, '__proto__', 'constructor', 'toString', 'hasOwnProperty', ' '.repeat(1024)]) {
        const res = await postUnlink(h, attacker.browser, { accountId, json: 'true' })
        expect(res.status).toBe(404)
      }
      const both = await postUnlink(h, attacker.browser, { accountId: ['a', 'b'] as unknown as string })
      expect(both.status).toBeLessThan(500)
      expect(await h.waysIn(ivan.userId)).toEqual(['oidc', 'plain'])
      await expect(h.router.unlinkAccount('__proto__', '__proto__')).resolves.toBe(false)
      await expect(h.router.unlinkAccount(ivan.userId, 'constructor')).resolves.toBe(false)
    })
  })
})

describe("the signIn callback's { userId }", () => {
  it('keeps prototype keys as plain user ids: their own users, never an error', async () => {
    let chosen = '__proto__'
    const h = await startAccounts({ signIn: () => ({ userId: chosen }) })
    try {
      const logins = [
        ['__proto__', 'alice'],
        ['constructor', 'bob'],
        ['hasOwnProperty', 'carol'],
      ] as const
      for (const [id, login] of logins) {
        chosen = id
        const { browser } = await signedIn(h, 'oidc', login)
        expect(await h.whoami(browser)).toBe(id)
        expect(await h.router.getUser(id)).toMatchObject({ id })
      }
      expect(await h.waysIn('__proto__')).toEqual(['oidc'])
      // alice's identity is __proto__'s: another user id chosen for it is refused, not moved.
      chosen = 'constructor'
      const res = await signInAs(h, new Browser(h), 'oidc', 'alice')
      expect(res.headers.get('location')).toBe(`${h.base}/error?error=AccountAlreadyLinked`)
      expect(await h.waysIn('constructor')).toEqual(['oidc'])
    } finally {
      await h.stop()
    }
  })
})

const browserSession = (browser: Browser) => browser.cookie('auth.session-token')?.value

/** memoryAccounts() whose named methods throw while they are listed in `failing` (a store outage). */
function faultyStore(): { store: AccountStore; failing: Set<keyof AccountStore> } {
  const inner = memoryAccounts()
  const failing = new Set<keyof AccountStore>()
  const store = Object.fromEntries(
    (Object.keys(inner) as Array<keyof AccountStore>).map((name) => [
      name,
      async (...args: unknown[]) => {
        if (failing.has(name)) throw Object.assign(new Error('connection reset'), { code: 'ECONNRESET' })
        return (inner[name] as (...a: unknown[]) => Promise<unknown>)(...args)
      },
    ]),
  ) as unknown as AccountStore
  return { store, failing }
}

describe('a store outage in the middle of a sign-in', () => {
  it('answers 503 with no session at each step, and leaves nothing half-made that signs in', async () => {
    const { store, failing } = faultyStore()
    const h = await startAccounts({ store })
    try {
      const alice = await signedIn(h, 'oidc', 'alice')
      // Each step a sign-in in a fresh browser but the link, which is alice's own browser's.
      const steps: Array<() => Promise<{ res: Response; browser: Browser }>> = [
        async (browser = new Browser(h)) => ({ res: await signInAs(h, browser, 'oidc', 'alice'), browser }),
        async (browser = new Browser(h)) => ({ res: await signInAs(h, browser, 'oidc', 'bob'), browser }),
        async () => ({
          res: await signInAs(h, alice.browser, 'plain', 'alice', { fields: { link: 'true' } }),
          browser: alice.browser,
        }),
      ]
      const methods: Array<keyof AccountStore> = [
        'findAccount',
        'getUser',
        'findUserByVerifiedEmail',
        'createUser',
        'linkAccount',
        'touchAccount',
      ]
      for (const step of steps)
        for (const method of methods) {
          failing.add(method)
          const before = browserSession(alice.browser)
          const { res, browser } = await step()
          failing.delete(method)
          expect(res.status).not.toBe(500)
          if (res.status === 503) {
            if (browser === alice.browser) expect(browserSession(browser)).toBe(before)
            else expect(browser.cookie('auth.session-token')).toBeUndefined()
          }
        }
      // Healed: alice is alice, bob is one user, and plain is alice's at most.
      expect((await signedIn(h, 'oidc', 'alice')).userId).toBe(alice.userId)
      const bob = await signedIn(h, 'oidc', 'bob')
      expect((await signedIn(h, 'oidc', 'bob')).userId).toBe(bob.userId)
      expect(await h.waysIn(bob.userId)).toEqual(['oidc'])
      const plain = await signInAs(h, new Browser(h), 'plain', 'alice')
      expect([`${h.origin}/welcome`, `${h.base}/error?error=OAuthAccountNotLinked`]).toContain(
        plain.headers.get('location'),
      )
    } finally {
      await h.stop()
    }
  })
})

describe('deleteUser while the user signs in', () => {
  it('leaves no session when the sign-in read its user just before the user was deleted', async () => {
    const inner = memoryAccounts()
    // getUser answers, then waits for the spec: deleteUser runs whole in between.
    let gate: { reached: () => void; release: Promise<void> } | null = null
    const store: AccountStore = {
      ...inner,
      async getUser(userId) {
        const user = await inner.getUser(userId)
        const held = gate
        gate = null
        if (held) {
          held.reached()
          await held.release
        }
        return user
      },
    }
    const h = await startAccounts({ store })
    try {
      const alice = await signedIn(h, 'oidc', 'alice')
      let reached!: () => void
      let release!: () => void
      const atGate = new Promise<void>((resolve) => (reached = resolve))
      gate = { reached, release: new Promise<void>((resolve) => (release = resolve)) }
      const browser = new Browser(h)
      const signingIn = signInAs(h, browser, 'oidc', 'alice')
      await atGate
      expect(await h.router.deleteUser(alice.userId)).toBe(true)
      release()
      const res = await signingIn
      expect(res.status).toBeLessThan(500)
      expect(await h.whoami(browser)).toBeNull()
      expect(await h.whoami(alice.browser)).toBeNull()
      expect(await h.router.getUser(alice.userId)).toBeNull()
    } finally {
      await h.stop()
    }
  })
})

describe('hostile claims from an issuer', () => {
  const stores: Array<[string, () => Promise<AccountStore>]> = [
    ['memory', async () => memoryAccounts()],
    ['Redis', async () => redisAccounts(redis.client(), { prefix: redis.prefix('attack32') })],
    [
      'PostgreSQL',
      async () => {
        const store = postgresAccounts(db.pool(), {
          schema: db.schema,
          tablePrefix: `a${randomBytes(3).toString('hex')}_`,
        })
        await store.migrate()
        return store
      },
    ],
  ]

  describe.each(stores)('on the %s store', (_name, makeStore) => {
    let h: HostileHarness
    let store: AccountStore
    beforeAll(async () => {
      store = await makeStore()
      h = await startHostileHarness({ auth: { accounts: store, requestRateLimit: { limit: 10_000 } } })
    })
    afterAll(() => h?.stop())
    afterEach(() => h.issuer.reset())

    /** Signs in with the issuer saying `claims` (ID token and userinfo alike). */
    async function signInWith(claims: Record<string, unknown>): Promise<Response> {
      h.issuer.behave({ idTokenClaims: claims, userinfo: claims })
      return h.browser().signIn('hostile')
    }
    const accountOf = (subject: string) => store.findAccount({ provider: 'hostile', issuer: h.issuer.issuer, subject })

    it('gives prototype keys as subjects users of their own', async () => {
      for (const sub of ['__proto__', 'constructor', 'toString']) {
        const res = await signInWith({ sub })
        expect(res.headers.get('location')).toBe(`${h.origin}/welcome`)
      }
      const users = await Promise.all(
        ['__proto__', 'constructor', 'toString'].map(async (sub) => (await accountOf(sub))?.userId),
      )
      expect(new Set(users).size).toBe(3)
    })

    it('takes `email_verified: "true"` (a string) as unverified, and matches verified addresses whatever their case', async () => {
      const owner: User = {
        id: `owner-${randomBytes(4).toString('hex')}`,
        name: null,
        email: 'owner@example.com',
        emailVerified: new Date(),
        image: null,
        createdAt: new Date(),
      }
      expect((await store.createUser(owner, null)).kind).toBe('created')
      const stringly = await signInWith({ sub: 'stringly', email: 'owner@example.com', email_verified: 'true' })
      expect(stringly.headers.get('location')).toBe(`${h.origin}/welcome`)
      const made = await store.getUser((await accountOf('stringly'))!.userId)
      expect(made).toMatchObject({ emailVerified: null })
      expect(made?.id).not.toBe(owner.id)

      const shouting = await signInWith({ sub: 'shouting', email: 'OWNER@EXAMPLE.COM', email_verified: true })
      expect(shouting.headers.get('location')).toBe(`${h.base}/error?error=OAuthAccountNotLinked`)
      expect(await accountOf('shouting')).toBeNull()
    })

    it('refuses a subject no store keeps as it is, and keeps a NUL out of what it stores, never a 5xx', async () => {
      // A NUL (PostgreSQL refuses it), a lone surrogate (PostgreSQL makes it U+FFFD, so that two
      // subjects would be one identity), more than its unique index holds.
      for (const sub of ['a\u0000b', 'v\ud800', randomBytes(3000).toString('base64')]) {
        const res = await signInWith({ sub })
        expect(res.status).toBe(302)
        expect(res.headers.get('location')).toBe(`${h.base}/error?error=AccessDenied`)
      }
      const named = await signInWith({ sub: 'named', name: 'Eve\u0000\u001b[31m', preferred_username: 'eve\u0000' })
      expect(named.headers.get('location')).toBe(`${h.origin}/welcome`)
      const account = (await accountOf('named'))!
      expect(account.label).not.toContain('\u0000')
      expect((await store.getUser(account.userId))?.name).not.toContain('\u0000')
      // An address with a NUL counts as unverified: nobody's, and not kept as one.
      const address = await signInWith({ sub: 'nul-address', email: 'nul\u0000@example.com', email_verified: true })
      expect(address.headers.get('location')).toBe(`${h.origin}/welcome`)
      expect(await store.getUser((await accountOf('nul-address'))!.userId)).toMatchObject({ emailVerified: null })
    })
  })
})
