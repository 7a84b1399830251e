import { oidc, type AuthOptions, type LogEntry, type OidcOptions } from '../../lib'
import { serve } from './app'
import { Browser } from './browser'
import { startHostileIssuer, type Behaviour, type HostileIssuer } from './hostile-issuer'

/**
 * The app on `localhost` with one OIDC provider, `hostile`, whose issuer is the stub of
 * spec/support/hostile-issuer.ts on 127.0.0.1 (two sites, as with the real identity provider).
 * Discovery happens on the first sign-in and is kept, so the discovery document a spec needs
 * (e.g. whether the `iss` parameter is announced) is given here, before that first sign-in.
 */
export interface HostileHarness {
  base: string
  origin: string
  issuer: HostileIssuer
  logs: LogEntry[]
  /** A new browser (an empty cookie jar), to sign in with `hostile`. */
  browser(): Browser
  stop(): Promise<void>
}

export interface HostileOptions {
  behaviour?: Partial<Behaviour>
  /** The issuer written with a trailing slash (Auth0's is). */
  trailingSlash?: boolean
  auth?: Partial<AuthOptions>
  /** More options of the `hostile` provider. */
  provider?: Pick<OidcOptions, 'acrValues'>
}

export async function startHostileHarness(options: HostileOptions = {}): Promise<HostileHarness> {
  const issuer = await startHostileIssuer(options.behaviour, { trailingSlash: options.trailingSlash ?? false })
  const served = await serve({
    providers: [
      oidc({
        id: 'hostile',
        name: 'Hostile',
        issuer: issuer.issuer,
        clientId: issuer.clientId,
        clientSecret: issuer.clientSecret,
        ...options.provider,
      }),
    ],
    ...options.auth,
  })
  return {
    base: served.base,
    origin: served.origin,
    issuer,
    logs: served.logs,
    browser: () => new Browser(served),
    stop: async () => {
      await served.close()
      await issuer.stop()
    },
  }
}

/**
 * For a spec file or a describe block: the harness, started before its tests and stopped after
 * them; after each test the issuer behaves as it started again.
 */
export function useHostileHarness(options: HostileOptions = {}): HostileHarness {
  const h = {} as HostileHarness
  beforeAll(async () => {
    Object.assign(h, await startHostileHarness(options))
  })
  afterEach(() => h.issuer?.reset())
  afterAll(() => h.stop?.())
  return h
}

/** What the user sees of a refused callback: the OAuthCallback error page, and nobody signed in. */
export async function expectRefused(h: HostileHarness, browser: Browser, res: Response, reason: RegExp): Promise<void> {
  expect(res.status).toBe(302)
  expect(res.headers.get('location')).toBe(`${h.base}/error?error=OAuthCallback`)
  expect(browser.cookie('auth.session-token')).toBeUndefined()
  expect(await browser.session()).toEqual({})
  expect(h.logs.filter((entry) => entry.event === 'callback.error').at(-1)?.message).toMatch(reason)
}

/** What the user sees of a sign-in that went through: back on the callbackUrl, signed in as the issuer's subject. */
export async function expectSignedIn(
  h: HostileHarness,
  browser: Browser,
  res: Response,
  where = `${h.origin}/welcome`,
): Promise<void> {
  expect(res.status).toBe(302)
  expect(res.headers.get('location')).toBe(where)
  expect(browser.cookie('auth.session-token')).toBeDefined()
  expect(await browser.session()).toEqual({
    user: { name: 'Alice Example', email: 'alice@example.com', image: null },
    expires: expect.any(String),
  })
  expect(h.logs.at(-1)).toMatchObject({ event: 'session.created', userId: 'hostile:alice', provider: 'hostile' })
}
