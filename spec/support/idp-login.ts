import type { CookieJar } from './cookie-jar'
import { decodeEntities, findForm } from './forms'

/**
 * Plays the browser at the test IdP (examples/idp/server.mjs) over plain HTTP: starting from the
 * authorization URL our app redirected to, it follows the IdP's redirects, submits the login form
 * (or presses Cancel) and follows on until the IdP redirects to another origin, i.e. back to the
 * client. Returns that URL without requesting it: the redirect_uri with `code`, `state` and `iss`,
 * or with `error` (e.g. access_denied). Cookies go through `jar`, so a second call with the same
 * jar finds the IdP session and skips the login page.
 */

export interface IdpLoginOptions {
  jar: CookieJar
  /** accountId or e-mail; needed only if the login page is shown. */
  login?: string
  /** Default 'password' (users configured without a password accept any). */
  password?: string
  /** 'deny' presses Cancel on the login page: the client then gets error=access_denied. */
  action?: 'login' | 'deny'
}

const MAX_STEPS = 20

export async function idpLogin(authorizationUrl: string | URL, options: IdpLoginOptions): Promise<URL> {
  const { jar, action = 'login' } = options
  let url = new URL(authorizationUrl)
  const idpOrigin = url.origin
  let init: RequestInit = { method: 'GET' }
  let submitted = false

  for (let step = 0; step < MAX_STEPS; step++) {
    // The first request is the navigation from the client's site to the IdP's.
    const response = await jar.fetch(url, init, { crossSite: step === 0 })
    const location = response.headers.get('location')
    if (response.status >= 300 && response.status < 400 && location) {
      await response.arrayBuffer() // let the connection be reused
      const next = new URL(location, url) // oidc-provider's Locations are often relative
      if (next.origin !== idpOrigin) return next
      url = next
      init = { method: 'GET' }
      continue
    }

    const html = await response.text()
    const form = findForm(html, { id: action === 'deny' ? 'abort-form' : 'login-form' })
    if (!form)
      throw new Error(
        `test IdP answered ${response.status} at ${url.pathname} with no ${action} form: ${pageText(html)}`,
      )
    if (submitted) throw new Error(`test IdP login failed: ${alertText(html) ?? pageText(html)}`)
    if (action === 'login' && options.login === undefined)
      throw new Error('the test IdP asks for a login: pass `login` (and `password`)')

    submitted = true
    url = new URL(form.action, url)
    const body =
      action === 'deny'
        ? new URLSearchParams()
        : new URLSearchParams({ login: options.login ?? '', password: options.password ?? 'password' })
    init = { method: 'POST', body }
  }
  throw new Error(`test IdP: no redirect back to the client after ${MAX_STEPS} steps (last URL ${url.href})`)
}

function alertText(html: string): string | undefined {
  const alert = /role="alert"[^>]*>([^<]*)</.exec(html)
  return alert?.[1] ? decodeEntities(alert[1]) : undefined
}

function pageText(html: string): string {
  return decodeEntities(html.replace(/<style[\s\S]*?<\/style>/gi, '').replace(/<[^<>]*>/g, ' '))
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 500)
}
