import type { Server } from 'node:http'
import express from 'express'
import { auth, oauth2, oidc, passportStrategy, type AuthOptions, type LogEntry } from '../../lib'
import { SECRET } from '../support/app'
import { CookieJar } from '../support/cookie-jar'
import { startIdp, type Idp } from '../support/idp'
import { idpLogin } from '../support/idp-login'
import { freePort } from '../support/process'
import { thirdPartyStrategy } from './third-party-strategy'

/**
 * The real thing on loopback: the app on `localhost`, the oidc-provider identity provider on
 * `127.0.0.1` (two sites, as in production), and a cookie jar that behaves like a browser.
 */
export interface Harness {
  base: string
  origin: string
  idp: Idp
  logs: LogEntry[]
  stop(): Promise<void>
}

interface Discovery { authorization_endpoint: string; token_endpoint: string; userinfo_endpoint: string }

export async function startHarness(options: Partial<AuthOptions> = {}): Promise<Harness> {
  const port = await freePort()
  const deadPort = await freePort()
  const origin = `http://localhost:${port}`
  const base = `${origin}/api/auth`
  const callbacks = ['oidc', 'plain', 'wrongsecret', 'deadtoken', 'passport'].map((id) => `${base}/callback/${id}`)
  const idp = await startIdp({
    clients: [
      { client_id: 'app', client_secret: 'app-secret', redirect_uris: callbacks, token_endpoint_auth_method: 'client_secret_post' },
      { client_id: 'second', client_secret: 'second-secret', redirect_uris: [`${base}/callback/second`], token_endpoint_auth_method: 'client_secret_post' },
    ],
  })
  const meta = (await (await fetch(`${idp.issuer}/.well-known/openid-configuration`)).json()) as Discovery
  const logs: LogEntry[] = []
  const app = express()
  app.use('/api/auth', auth({
    url: base,
    secret: SECRET,
    logger: (entry) => logs.push(entry),
    providers: [
      oidc({ id: 'oidc', name: 'Demo', issuer: idp.issuer, clientId: 'app', clientSecret: 'app-secret' }),
      oidc({ id: 'second', name: 'Second', issuer: idp.issuer, clientId: 'second', clientSecret: 'second-secret' }),
      oauth2({ id: 'plain', name: 'Plain', clientId: 'app', clientSecret: 'app-secret', authorizationUrl: meta.authorization_endpoint, tokenUrl: meta.token_endpoint, userinfoUrl: meta.userinfo_endpoint, scope: 'openid email profile' }),
      oidc({ id: 'wrongsecret', issuer: idp.issuer, clientId: 'app', clientSecret: 'not-the-secret' }),
      oauth2({ id: 'deadtoken', clientId: 'app', clientSecret: 'app-secret', authorizationUrl: meta.authorization_endpoint, tokenUrl: `http://127.0.0.1:${deadPort}/token`, scope: 'openid' }),
      passportStrategy({ id: 'passport', name: 'Passport', strategy: thirdPartyStrategy(idp.issuer, meta), options: { clientID: 'app', clientSecret: 'app-secret', scope: ['openid', 'email', 'profile'] } }),
      oidc({ id: 'offline', issuer: `http://127.0.0.1:${deadPort}`, clientId: 'x', clientSecret: 'y' }),
    ],
    ...options,
  }))
  app.get('/welcome', (_req, res) => { res.send('welcome') })
  const server: Server = await new Promise((resolve) => { const s = app.listen(port, '127.0.0.1', () => resolve(s)) })
  return {
    base, origin, idp, logs,
    stop: async () => {
      await new Promise((resolve) => server.close(resolve))
      await idp.stop()
    },
  }
}

/** One browser: its cookie jar, and the steps a user takes. */
export class Browser {
  readonly jar = new CookieJar()
  constructor(private readonly h: Pick<Harness, 'base' | 'origin'>) {}

  async csrfToken(): Promise<string> {
    return ((await (await this.jar.fetch(`${this.h.base}/csrf`)).json()) as { csrfToken: string }).csrfToken
  }

  /** POST /signin/:provider from the sign-in page: the provider's authorization URL. */
  async startSignIn(provider: string, options: { callbackUrl?: string; query?: string; json?: boolean } = {}): Promise<Response> {
    const body = new URLSearchParams({ csrfToken: await this.csrfToken(), callbackUrl: options.callbackUrl ?? '/welcome' })
    if (options.json) body.set('json', 'true')
    return this.jar.fetch(`${this.h.base}/signin/${provider}${options.query ?? ''}`, { method: 'POST', body })
  }

  async authorizationUrl(provider: string, options: { callbackUrl?: string; query?: string } = {}): Promise<URL> {
    const res = await this.startSignIn(provider, options)
    if (res.status !== 302) throw new Error(`sign-in answered ${res.status}`)
    return new URL(res.headers.get('location')!)
  }

  /** Logs in (or declines) at the identity provider: the URL the provider sends the browser back to. */
  login(authorizationUrl: URL, action: 'login' | 'deny' = 'login'): Promise<URL> {
    return idpLogin(authorizationUrl, { jar: this.jar, login: 'alice', action })
  }

  /** The browser follows the provider's redirect back to the app: a cross-site top-level GET. */
  returnTo(callback: URL | string): Promise<Response> {
    return this.jar.fetch(callback, {}, { crossSite: true })
  }

  async signIn(provider = 'oidc'): Promise<Response> {
    return this.returnTo(await this.login(await this.authorizationUrl(provider)))
  }

  async session(): Promise<Record<string, unknown>> {
    return (await (await this.jar.fetch(`${this.h.base}/session`)).json()) as Record<string, unknown>
  }

  cookie(name: string) {
    return this.jar.get('localhost', name)
  }

  flowCookies() {
    return this.jar.all('localhost').filter((cookie) => cookie.name.startsWith('auth.flow.'))
  }
}
