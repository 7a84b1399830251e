import type { Express } from 'express'
import { recoveryCodes, totp } from '../../lib'
import {
  signInAs,
  startAccounts,
  startSignIn,
  USERS,
  type AccountsHarness,
  type AccountsSetup,
} from '../accounts/accounts-harness'
import { Browser } from '../support/browser'
import { idpLogin } from '../support/idp-login'

/**
 * OpenID Connect and step-up, against the real identity provider (oidc-provider): a step-up's
 * sign-in asks it for a fresh sign-in (`prompt=login`, `max_age=0`, whatever the app's own extra
 * parameters say) and is refused when the ID token's `auth_time` says the user signed in before it
 * began; an ID token whose `amr` names `mfa`, or whose `acr` is one of `oidc({ acrValues })`, counts
 * as two factors (no `{base}/mfa` step, a session with aal 2); any other asks for the second factor.
 */

type Record = { userId: string; amr: string[]; aal: number; authTime: number } | null

/** The accounts harness with `GET /record`: the app's reading of the browser's session. */
async function start(setup: AccountsSetup): Promise<AccountsHarness & { record(b: Browser): Promise<Record> }> {
  let h: AccountsHarness | null = null
  const routes = (app: Express) => {
    app.get('/record', (req, res, next) => {
      h!.router
        .getSessionRecord(req)
        .then((record) => res.json(record))
        .catch(next)
    })
  }
  h = await startAccounts({ ...setup, setup: routes })
  const served = h
  return {
    ...served,
    record: async (browser) => (await (await browser.jar.fetch(`${served.origin}/record`)).json()) as Record,
  }
}

/** The step-up's sign-in page (where requireAuth sends a page load): it marks who must sign in again. */
async function openStepUp(h: AccountsHarness, browser: Browser): Promise<void> {
  const callbackUrl = encodeURIComponent(`${h.origin}/welcome`)
  const page = await browser.jar.fetch(`${h.base}/signin?reauth=1&callbackUrl=${callbackUrl}`)
  expect(page.status).toBe(200)
  expect(await page.text()).toContain('sign in again')
}

/** The sign-in POST's redirect to the IdP: its authorization URL. */
async function authorizationOf(res: Response): Promise<URL> {
  expect(res.status).toBe(302)
  await res.arrayBuffer()
  return new URL(res.headers.get('location')!)
}

const lastCallbackError = (h: AccountsHarness) =>
  h.logs.filter((entry) => entry.event === 'callback.error').at(-1)?.message

describe('a step-up through OpenID Connect', () => {
  let h: Awaited<ReturnType<typeof start>>
  beforeAll(async () => {
    h = await start({
      // `stale`: the IdP records every sign-in of hers as made ten minutes ago, prompt=login or not.
      idp: { users: [...USERS, { accountId: 'stale', name: 'Stale', email: 'stale@example.com', authTimeAgo: 600 }] },
      // Every ID token says when its user signed in (as Keycloak's do), not only a step-up's.
      authTime: true,
    })
  })
  afterAll(() => h?.stop())

  it('asks the IdP for a fresh sign-in (prompt=login, max_age=0, over the app’s own), and meets it', async () => {
    const browser = new Browser(h)
    expect((await signInAs(h, browser, 'oidc', 'alice')).headers.get('location')).toBe(`${h.origin}/welcome`)
    const alice = (await h.whoami(browser))!
    // An ordinary sign-in asks for nothing of the kind.
    const ordinary = await authorizationOf(await startSignIn(h, new Browser(h), 'oidc'))
    expect([ordinary.searchParams.get('prompt'), ordinary.searchParams.get('max_age')]).toEqual([null, null])

    await openStepUp(h, browser)
    const before = Math.floor(Date.now() / 1000)
    const weak = { query: { prompt: 'none', max_age: '86400' }, callbackUrl: `${h.origin}/welcome` }
    const authorization = await authorizationOf(await startSignIn(h, browser, 'oidc', weak))
    expect(authorization.searchParams.getAll('prompt')).toEqual(['login'])
    expect(authorization.searchParams.getAll('max_age')).toEqual(['0'])
    // The IdP still knows alice (its session cookie is in the jar), and asks her to sign in again.
    const back = await idpLogin(authorization, { jar: browser.jar, login: 'alice' })
    const res = await browser.returnTo(back)
    expect(res.headers.get('location')).toBe(`${h.origin}/welcome`)
    const record = (await h.record(browser))!
    expect(record.userId).toBe(alice)
    expect(record.authTime).toBeGreaterThanOrEqual(before)
    expect(browser.cookie('auth.reauth')).toBeUndefined()
  })

  it('refuses an ID token whose auth_time is before the step-up began, and keeps the session as it was', async () => {
    const browser = new Browser(h)
    // Her ordinary sign-in goes through: only a step-up asks when she signed in.
    expect((await signInAs(h, browser, 'oidc', 'stale')).headers.get('location')).toBe(`${h.origin}/welcome`)
    const stale = (await h.whoami(browser))!
    const { authTime } = (await h.record(browser))!
    // The session says when she really signed in: the IdP's auth_time, ten minutes ago, not now.
    expect(Math.floor(Date.now() / 1000) - authTime).toBeGreaterThanOrEqual(590)

    await openStepUp(h, browser)
    const authorization = await authorizationOf(await startSignIn(h, browser, 'oidc'))
    expect(authorization.searchParams.get('prompt')).toBe('login')
    const res = await browser.returnTo(await idpLogin(authorization, { jar: browser.jar, login: 'stale' }))
    expect(res.headers.get('location')).toBe(`${h.base}/error?error=OAuthCallback`)
    expect(lastCallbackError(h)).toMatch(/re-authentication .*signed in before it started: refused/)
    expect(await h.record(browser)).toMatchObject({ userId: stale, authTime })
  })

  it('refuses a sign-in that began before the step-up did (another tab), and the step-up then goes through', async () => {
    const browser = new Browser(h)
    await signInAs(h, browser, 'oidc', 'alice')
    const alice = (await h.whoami(browser))!
    const earlier = await authorizationOf(await startSignIn(h, browser, 'oidc'))
    expect(earlier.searchParams.get('prompt')).toBeNull()
    await openStepUp(h, browser)
    // The IdP's session answers the earlier request at once, with no sign-in.
    const res = await browser.returnTo(await idpLogin(earlier, { jar: browser.jar }))
    expect(res.headers.get('location')).toBe(`${h.base}/error?error=OAuthCallback`)
    expect(lastCallbackError(h)).toMatch(/re-authentication began after this sign-in started/)

    const authorization = await authorizationOf(await startSignIn(h, browser, 'oidc'))
    const again = await browser.returnTo(await idpLogin(authorization, { jar: browser.jar, login: 'alice' }))
    expect(again.headers.get('location')).toBe(`${h.origin}/welcome`)
    expect(await h.whoami(browser)).toBe(alice)
  })
})

describe('an ID token that says two factors', () => {
  const GOLD = 'urn:example:gold'
  let h: Awaited<ReturnType<typeof start>>
  beforeAll(async () => {
    const user = (accountId: string, more: object) => ({
      accountId,
      name: accountId,
      email: `${accountId}@example.com`,
      ...more,
    })
    h = await start({
      idp: {
        users: [
          ...USERS,
          user('strong', { amr: ['pwd', 'mfa'] }),
          user('weak', { amr: ['pwd'] }),
          user('gold', { acr: GOLD }),
          user('gold-elsewhere', { acr: GOLD }),
          user('silver', { acr: 'urn:example:silver' }),
        ],
      },
      oidc: { acrValues: [GOLD] },
      options: { mfa: { factors: [totp(), recoveryCodes()], require: 'always' } },
    })
  })
  afterAll(() => h?.stop())

  it('sends acrValues as acr_values in every authorization request of that provider only', async () => {
    const browser = new Browser(h)
    expect((await authorizationOf(await startSignIn(h, browser, 'oidc'))).searchParams.getAll('acr_values')).toEqual([
      GOLD,
    ])
    expect((await authorizationOf(await startSignIn(h, browser, 'second'))).searchParams.get('acr_values')).toBeNull()
  })

  it.each([
    ['amr names mfa', 'strong', ['pwd', 'mfa']],
    ['acr is among acrValues', 'gold', ['mfa']],
  ])('%s: a session with aal 2, and no {base}/mfa step', async (_, login, amr) => {
    const browser = new Browser(h)
    const res = await signInAs(h, browser, 'oidc', login)
    expect(res.headers.get('location')).toBe(`${h.origin}/welcome`)
    expect(await h.record(browser)).toMatchObject({ aal: 2, amr })
  })

  it.each([
    ['amr without mfa', 'oidc', 'weak'],
    ['no amr or acr', 'oidc', 'alice'],
    ['an acr not among acrValues', 'oidc', 'silver'],
    ['an acr among the acrValues of another provider only', 'second', 'gold-elsewhere'],
  ])('%s: the second factor is asked', async (_, provider, login) => {
    const browser = new Browser(h)
    const res = await signInAs(h, browser, provider, login)
    expect(res.headers.get('location')).toMatch(new RegExp(`^${h.base}/mfa\\?`))
    expect(await h.record(browser)).toBeNull()
  })
})
