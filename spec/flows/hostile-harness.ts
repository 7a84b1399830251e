import type { Server } from 'node:http'
import express from 'express'
import { auth, oidc, type AuthOptions, type LogEntry } from '../../lib'
import { SECRET } from '../support/app'
import { CookieJar } from '../support/cookie-jar'
import { startHostileIssuer, type Behaviour, type HostileIssuer } from '../support/hostile-issuer'
import { freePort } from '../support/process'

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
  /** A new browser (an empty cookie jar). */
  browser(): HostileBrowser
  stop(): Promise<void>
}

export async function startHostileHarness(options: { behaviour?: Partial<Behaviour>; auth?: Partial<AuthOptions> } = {}): Promise<HostileHarness> {
  const issuer = await startHostileIssuer(options.behaviour)
  const port = await freePort()
  const origin = `http://localhost:${port}`
  const base = `${origin}/api/auth`
  const logs: LogEntry[] = []
  const app = express()
  app.use('/api/auth', auth({
    url: base,
    secret: SECRET,
    logger: (entry) => logs.push(entry),
    providers: [oidc({ id: 'hostile', name: 'Hostile', issuer: issuer.issuer, clientId: issuer.clientId, clientSecret: issuer.clientSecret })],
    ...options.auth,
  }))
  app.get('/welcome', (_req, res) => { res.send('welcome') })
  const server: Server = await new Promise((resolve) => { const s = app.listen(port, '127.0.0.1', () => resolve(s)) })
  return {
    base, origin, issuer, logs,
    browser: () => new HostileBrowser(base),
    stop: async () => {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
      await issuer.stop()
    },
  }
}

/** One browser and the steps its user takes. */
export class HostileBrowser {
  readonly jar = new CookieJar()
  constructor(private readonly base: string) {}

  async csrfToken(): Promise<string> {
    return ((await (await this.jar.fetch(`${this.base}/csrf`)).json()) as { csrfToken: string }).csrfToken
  }

  /** POST /signin/hostile from the sign-in page. */
  async startSignIn(callbackUrl = '/welcome'): Promise<Response> {
    return this.jar.fetch(`${this.base}/signin/hostile`, { method: 'POST', body: new URLSearchParams({ csrfToken: await this.csrfToken(), callbackUrl }) })
  }

  /**
   * The whole sign-in: POST /signin/hostile, to the issuer (which sends the browser straight back),
   * and back to the callback, a cross-site top-level GET. The last response of the app: the
   * callback's, or the sign-in POST's when it did not send the browser to the issuer.
   */
  async signIn(callbackUrl?: string): Promise<Response> {
    const started = await this.startSignIn(callbackUrl)
    const location = started.headers.get('location')
    if (started.status !== 302 || location === null || location.startsWith(this.base)) return started
    const authorized = await this.jar.fetch(location, {}, { crossSite: true })
    const callback = authorized.headers.get('location')
    if (authorized.status !== 302 || callback === null) throw new Error(`the issuer answered ${authorized.status}: ${await authorized.text()}`)
    return this.jar.fetch(callback, {}, { crossSite: true })
  }

  async signOut(body: Record<string, string> = {}): Promise<Response> {
    return this.jar.fetch(`${this.base}/signout`, { method: 'POST', body: new URLSearchParams({ csrfToken: await this.csrfToken(), ...body }) })
  }

  async session(): Promise<Record<string, unknown>> {
    return (await (await this.jar.fetch(`${this.base}/session`)).json()) as Record<string, unknown>
  }

  sessionCookie() {
    return this.jar.get('localhost', 'auth.session-token')
  }
}

/** What the user sees of a refused callback: the OAuthCallback error page, and nobody signed in. */
export async function expectRefused(h: HostileHarness, browser: HostileBrowser, res: Response, reason: RegExp): Promise<void> {
  expect(res.status).toBe(302)
  expect(res.headers.get('location')).toBe(`${h.base}/error?error=OAuthCallback`)
  expect(browser.sessionCookie()).toBeUndefined()
  expect(await browser.session()).toEqual({})
  expect(h.logs.filter((entry) => entry.event === 'callback.error').at(-1)?.message).toMatch(reason)
}

/** What the user sees of a sign-in that went through: back on the callbackUrl, signed in as the issuer's subject. */
export async function expectSignedIn(h: HostileHarness, browser: HostileBrowser, res: Response, where = `${h.origin}/welcome`): Promise<void> {
  expect(res.status).toBe(302)
  expect(res.headers.get('location')).toBe(where)
  expect(browser.sessionCookie()).toBeDefined()
  expect(await browser.session()).toEqual({ user: { name: 'Alice Example', email: 'alice@example.com', image: null }, expires: expect.any(String) })
  expect(h.logs.at(-1)).toMatchObject({ event: 'session.created', userId: 'hostile:alice', provider: 'hostile' })
}
