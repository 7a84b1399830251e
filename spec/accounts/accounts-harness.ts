import {
  memoryAccounts,
  type AccountInfo,
  type AccountsOptions,
  type AccountStore,
  type AuthOptions,
  type SignInCallbackParams,
} from '../../lib'
import { Browser } from '../support/browser'
import type { IdpUser } from '../support/idp'
import { idpLogin } from '../support/idp-login'
import { startHarness, type Harness, type HarnessExtras } from '../support/oauth-harness'

/**
 * The accounts specs' app: the real IdP and its providers (../support/oauth-harness: `oidc` and
 * `second` are two OpenID clients of one IdP, `plain` plain OAuth 2 through userinfo), accounts in
 * memory (or the spec's store), every accounts event recorded, and `/whoami`, the app's own reading of the session's
 * user id (GET /session does not show it, as NextAuth's does not).
 */
export interface AccountsHarness extends Harness {
  store: AccountStore
  events: RecordedEvent[]
  /** The user id of this browser's session, as the app reads it; null when signed out. */
  whoami(browser: Browser): Promise<string | null>
  /** The providers of the user's ways in, as `listAccounts` lists them (the first linked first). */
  waysIn(userId: string): Promise<string[]>
  /** The user's way in with this provider, from `listAccounts`. */
  wayIn(userId: string, provider: string): Promise<AccountInfo>
}

export type EventName = 'userCreated' | 'accountLinked' | 'accountUnlinked' | 'userDeleted'
export interface RecordedEvent {
  name: EventName
  message: Record<string, unknown>
}

/** Users at the IdP; their addresses are all verified unless a spec says otherwise. */
export const USERS: readonly IdpUser[] = [
  'alice',
  'bob',
  'carol',
  'dave',
  'erin',
  'frank',
  'grace',
  'heidi',
  'ivan',
].map((login) => ({
  accountId: login,
  name: `${login[0]!.toUpperCase()}${login.slice(1)} Example`,
  email: `${login}@example.com`,
}))

export interface AccountsSetup {
  /** Default: a fresh memoryAccounts(). */
  store?: AccountStore
  /** `accounts`' options besides the store. */
  accounts?: Omit<AccountsOptions, 'store'>
  /** The app's signIn callback; default none. */
  signIn?: (params: SignInCallbackParams) => boolean | { userId: string } | Promise<boolean | { userId: string }>
  /** More of auth()'s options. */
  options?: Partial<AuthOptions>
  idp?: HarnessExtras['idp']
  /** More options of the `oidc` provider. */
  oidc?: HarnessExtras['oidc']
  authTime?: HarnessExtras['authTime']
  /** The app's own routes, beside `/whoami`. */
  setup?: HarnessExtras['setup']
}

export async function startAccounts(setup: AccountsSetup = {}): Promise<AccountsHarness> {
  const store = setup.store ?? memoryAccounts()
  const events: RecordedEvent[] = []
  const record = (name: EventName) => (message: unknown) => {
    events.push({ name, message: message as Record<string, unknown> })
  }
  const h: Harness = await startHarness(
    {
      accounts: { store, ...setup.accounts },
      // Many sign-ins from one address in a few seconds: far more than a person makes.
      requestRateLimit: { limit: 10_000 },
      events: {
        userCreated: record('userCreated'),
        accountLinked: record('accountLinked'),
        accountUnlinked: record('accountUnlinked'),
        userDeleted: record('userDeleted'),
      },
      ...(setup.signIn ? { callbacks: { signIn: setup.signIn } } : {}),
      ...setup.options,
    },
    {
      idp: { users: [...USERS], ...setup.idp },
      ...(setup.oidc ? { oidc: setup.oidc } : {}),
      ...(setup.authTime ? { authTime: setup.authTime } : {}),
      setup: (app) => {
        app.get('/whoami', async (req, res) => {
          res.json({ userId: (await h.router.getSessionRecord(req))?.userId ?? null })
        })
        setup.setup?.(app)
      },
    },
  )
  const waysIn = async (userId: string) =>
    (await h.router.listAccounts(userId)).map((account: AccountInfo) => account.provider)
  return {
    ...h,
    store,
    events,
    async whoami(browser) {
      const res = await browser.jar.fetch(`${h.origin}/whoami`)
      return ((await res.json()) as { userId: string | null }).userId
    },
    waysIn,
    async wayIn(userId, provider) {
      const found = (await h.router.listAccounts(userId)).find((account) => account.provider === provider)
      if (!found) throw new Error(`the user has no ${provider} way in (${(await waysIn(userId)).join(', ')})`)
      return found
    },
  }
}

export interface SignInSteps {
  /** More form fields of the sign-in POST (`link: 'true'`, `json: 'true'`). */
  fields?: Record<string, string>
  /** Query parameters of the sign-in POST (`link=true`, as NextAuth's client sends it). */
  query?: Record<string, string>
  callbackUrl?: string
}

/**
 * The whole sign-in as `login` at the IdP: POST {base}/signin/:provider from the sign-in page, the
 * IdP's login form, and back to the callback. The service's last answer: the callback's, or the sign-in POST's
 * when it did not send the browser to the IdP.
 */
export async function signInAs(
  h: AccountsHarness,
  browser: Browser,
  provider: string,
  login: string,
  steps: SignInSteps = {},
): Promise<Response> {
  const started = await startSignIn(h, browser, provider, steps)
  const location = started.headers.get('location')
  if (started.status !== 302 || location === null || new URL(location).origin !== h.idp.issuer) return started
  // Signed out at the IdP first: oidc-provider answers a switch of account in one IdP session
  // with a logout form of its own, which a person would submit and the specs need not.
  browser.jar.clear(h.idp.issuer)
  return browser.returnTo(await idpLogin(new URL(location), { jar: browser.jar, login }))
}

/** The sign-in page's POST alone. */
export async function startSignIn(
  h: AccountsHarness,
  browser: Browser,
  provider: string,
  steps: SignInSteps = {},
): Promise<Response> {
  const body = new URLSearchParams({
    csrfToken: await browser.csrfToken(),
    callbackUrl: steps.callbackUrl ?? '/welcome',
    ...steps.fields,
  })
  const query = steps.query ? `?${new URLSearchParams(steps.query).toString()}` : ''
  return browser.jar.fetch(`${h.base}/signin/${provider}${query}`, { method: 'POST', body })
}

/** A browser signed in as `login` with `provider`, and its user id. */
export async function signedIn(
  h: AccountsHarness,
  provider: string,
  login: string,
): Promise<{ browser: Browser; userId: string }> {
  const browser = new Browser(h)
  const res = await signInAs(h, browser, provider, login)
  if (res.headers.get('location') !== `${h.origin}/welcome`)
    throw new Error(`${login} did not sign in with ${provider}: ${res.status} ${res.headers.get('location')}`)
  return { browser, userId: (await h.whoami(browser))! }
}

/** The page a browser lands on by following the service's redirects from `url` (same site). */
export async function follow(browser: Browser, url: string): Promise<{ status: number; url: string; text: string }> {
  let at = url
  for (let step = 0; step < 5; step++) {
    const res = await browser.jar.fetch(at)
    const location = res.headers.get('location')
    if (res.status < 300 || res.status >= 400 || location === null)
      return { status: res.status, url: at, text: await res.text() }
    await res.arrayBuffer()
    at = new URL(location, at).href
  }
  throw new Error(`more than 5 redirects from ${url}`)
}

/** The events of `name` recorded since index `from`. */
export function eventsSince(h: AccountsHarness, from: number, name?: EventName): RecordedEvent[] {
  return h.events.slice(from).filter((event) => name === undefined || event.name === name)
}
