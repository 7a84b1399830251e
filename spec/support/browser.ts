import { CookieJar } from './cookie-jar'
import { idpLogin } from './idp-login'

/**
 * One browser at a service served over HTTP (./app `serve`, or the demo app), and the steps its
 * user takes: the sign-in page's POST, the provider's pages (./idp-login: the test IdP's login form,
 * as alice, or an issuer that sends the browser straight back), the way back to the callback, and
 * sign-out. Its cookies live in a browser-like jar (./cookie-jar).
 */
export class Browser {
  /** `jar`: another browser's, for the same browser at another instance of one app. */
  constructor(
    private readonly service: { base: string; origin: string },
    readonly jar = new CookieJar(),
  ) {}

  async csrfToken(): Promise<string> {
    return ((await (await this.jar.fetch(`${this.service.base}/csrf`)).json()) as { csrfToken: string }).csrfToken
  }

  /** POST /signin/:provider from the sign-in page: the service's answer, usually the provider's authorization URL. */
  async startSignIn(
    provider: string,
    options: { callbackUrl?: string; query?: string; json?: boolean } = {},
  ): Promise<Response> {
    const body = new URLSearchParams({
      csrfToken: await this.csrfToken(),
      callbackUrl: options.callbackUrl ?? '/welcome',
    })
    if (options.json) body.set('json', 'true')
    return this.jar.fetch(`${this.service.base}/signin/${provider}${options.query ?? ''}`, { method: 'POST', body })
  }

  async authorizationUrl(provider: string, options: { callbackUrl?: string; query?: string } = {}): Promise<URL> {
    const res = await this.startSignIn(provider, options)
    if (res.status !== 302) throw new Error(`sign-in answered ${res.status}`)
    return new URL(res.headers.get('location')!)
  }

  /** Logs in (or declines) at the provider: the URL it sends the browser back to. */
  login(authorizationUrl: URL, action: 'login' | 'deny' = 'login'): Promise<URL> {
    return idpLogin(authorizationUrl, { jar: this.jar, login: 'alice', action })
  }

  /** The browser follows the provider's redirect back to the app: a cross-site top-level GET. */
  returnTo(callback: URL | string): Promise<Response> {
    return this.jar.fetch(callback, {}, { crossSite: true })
  }

  /**
   * The whole sign-in: POST /signin/:provider, the provider's pages, and back to the callback. The
   * service's last answer: the callback's, or the sign-in POST's when it did not send the browser
   * to another site.
   */
  async signIn(provider: string, options: { callbackUrl?: string } = {}): Promise<Response> {
    const started = await this.startSignIn(provider, options)
    const location = started.headers.get('location')
    if (started.status !== 302 || location === null) return started
    const authorization = new URL(location, this.service.base)
    if (authorization.origin === this.service.origin) return started
    return this.returnTo(await this.login(authorization))
  }

  /** POST /signout with the CSRF token, as the sign-out page does. */
  async signOut(body: Record<string, string> = {}): Promise<Response> {
    return this.jar.fetch(`${this.service.base}/signout`, {
      method: 'POST',
      body: new URLSearchParams({ csrfToken: await this.csrfToken(), ...body }),
    })
  }

  async session(): Promise<Record<string, unknown>> {
    return (await (await this.jar.fetch(`${this.service.base}/session`)).json()) as Record<string, unknown>
  }

  /** The cookie `name` this browser holds for the service's host. */
  cookie(name: string) {
    return this.jar.get(new URL(this.service.origin), name)
  }

  flowCookies() {
    return this.jar.all(new URL(this.service.origin)).filter((cookie) => cookie.name.startsWith('auth.flow.'))
  }
}
