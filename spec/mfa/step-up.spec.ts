import { request } from 'node:http'
import type { Express } from 'express'
import session from 'express-session'
import { Browser } from '../support/browser'
import { useLink } from '../support/email-harness'
import { restoreClock, setClock, useClock } from '../support/clock'
import { GOOD, linkIn, passwordSignIn, signUp } from '../password/password-harness'
import { codeOf, enrolledUser, newAddress, startMfaService, stopAll, type MfaService } from './mfa-harness'

/**
 * Step-up: `requireAuth({ maxAge, aal })` on the app's own routes. A session that proved too little
 * or too long ago sends a page load to sign in again (`{base}/signin?reauth=1&callbackUrl=…`) and
 * answers anything else RFC 9470's 401; signing in again meets it; a re-authentication as another
 * user is refused and the session stays.
 */

afterEach(stopAll)
afterEach(restoreClock)

/** The service with `/payout` (two factors) and `/settings` (signed in within the last 5 minutes). */
async function service(strategy: 'cookie' | 'database' = 'cookie'): Promise<MfaService> {
  let s: MfaService | null = null
  const routes = (app: Express) => {
    app.get(
      '/payout',
      (req, res, next) => s!.router.requireAuth({ aal: 2 })(req, res, next),
      (_req, res) => {
        res.json({ paid: true })
      },
    )
    app.get(
      '/settings',
      (req, res, next) => s!.router.requireAuth({ maxAge: 300 })(req, res, next),
      (_req, res) => {
        res.json({ settings: true })
      },
    )
  }
  s = await startMfaService(undefined, {
    setup: routes,
    options: { session: strategy === 'cookie' ? { strategy } : { strategy, store: new session.MemoryStore() } },
  })
  return s
}

/**
 * A page load, as a browser's address bar makes it: through node:http, since Node's fetch always
 * says `Sec-Fetch-Mode: cors`. The status and the Location.
 */
function navigate(browser: Browser, url: string): Promise<{ status: number; location: string | null }> {
  const cookie = browser.jar.header(url)
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { headers: { accept: 'text/html', 'sec-fetch-mode': 'navigate', ...(cookie ? { cookie } : {}) } },
      (res) => {
        res.resume()
        resolve({ status: res.statusCode ?? 0, location: res.headers.location ?? null })
      },
    )
    req.on('error', reject)
    req.end()
  })
}
/** `fetch()` from a page. */
const call = (browser: Browser, url: string) =>
  browser.jar.fetch(url, { headers: { accept: '*/*', 'sec-fetch-mode': 'cors' } })

describe('step-up: requireAuth({ maxAge, aal })', () => {
  it('asks a one-factor session for two: 401 with RFC 9470’s challenge to fetch, the sign-in page to a page load', async () => {
    const s = await service()
    const browser = new Browser(s)
    await signUp(s, browser, newAddress(), GOOD)
    const api = await call(browser, `${s.origin}/payout`)
    expect(api.status).toBe(401)
    expect(await api.json()).toEqual({ error: 'ReauthRequired', aal: 2 })
    expect(api.headers.get('www-authenticate')).toBe(
      'Bearer error="insufficient_user_authentication", error_description="A more recent or stronger authentication is required", acr_values="http://idmanagement.gov/ns/assurance/aal/2"',
    )
    const page = await navigate(browser, `${s.origin}/payout`)
    expect(page.status).toBe(302)
    const to = new URL(page.location!)
    expect(`${to.origin}${to.pathname}`).toBe(`${s.base}/signin`)
    expect(Object.fromEntries(to.searchParams)).toEqual({ reauth: '1', callbackUrl: `${s.origin}/payout` })
    const signIn = await browser.jar.fetch(to)
    const html = await signIn.text()
    expect(html).toContain('sign in again')
    // Only the ways in this user has: the password form, not the e-mail link form.
    expect(html).toContain(`action="${s.base}/callback/credentials"`)
    expect(html).not.toContain(`action="${s.base}/signin/email"`)
    const plain = await (await browser.jar.fetch(`${s.base}/signin`)).text()
    expect(plain).toContain(`action="${s.base}/signin/email"`)
  })

  it('lets a session made with two factors through', async () => {
    const s = await service()
    const address = newAddress()
    const { key } = await enrolledUser(s, new Browser(s), address)
    const browser = new Browser(s)
    await passwordSignIn(s, browser, address, GOOD)
    const body = new URLSearchParams({
      csrfToken: await browser.csrfToken(),
      factor: 'totp',
      code: codeOf(key, Date.now() + 30_000),
    })
    await browser.jar.fetch(`${s.base}/mfa/verify`, { method: 'POST', body })
    const paid = await call(browser, `${s.origin}/payout`)
    expect(paid.status).toBe(200)
    expect(await paid.json()).toEqual({ paid: true })
  })

  it('asks again after maxAge, with max_age in the challenge; signing in again meets it', async () => {
    const s = await service()
    const address = newAddress()
    const browser = new Browser(s)
    let now = Math.floor(Date.now() / 1000)
    useClock(now)
    await signUp(s, browser, address, GOOD)
    expect((await call(browser, `${s.origin}/settings`)).status).toBe(200)
    now += 301
    setClock(now)
    const late = await call(browser, `${s.origin}/settings`)
    expect(late.status).toBe(401)
    expect(await late.json()).toEqual({ error: 'ReauthRequired', maxAge: 300 })
    expect(late.headers.get('www-authenticate')).toContain('max_age=300')
    // The session itself is still good: GET /session answers it.
    expect(await browser.session()).toMatchObject({ user: { email: address } })
    await passwordSignIn(s, browser, address, GOOD)
    expect((await call(browser, `${s.origin}/settings`)).status).toBe(200)
  })

  it('refuses a re-authentication as another user, and keeps the session as it was', async () => {
    const s = await service()
    const [mine, theirs] = [newAddress(), newAddress()]
    await signUp(s, new Browser(s), theirs, GOOD)
    const browser = new Browser(s)
    await signUp(s, browser, mine, GOOD)
    const page = await navigate(browser, `${s.origin}/payout`)
    await browser.jar.fetch(page.location!)
    const other = await passwordSignIn(s, browser, theirs, GOOD)
    expect(((await other.json()) as { url: string }).url).toBe(`${s.base}/error?error=AccessDenied`)
    expect(await browser.session()).toMatchObject({ user: { email: mine } })
  })

  it.each(['database', 'cookie'] as const)(
    'a re-authentication goes on with the same session (%s): a new token, the same handle, the sign-in time kept',
    async (strategy) => {
      let now = Math.floor(Date.now() / 1000)
      useClock(now)
      const s = await service(strategy)
      const browser = new Browser(s)
      const address = newAddress()
      await signUp(s, browser, address, GOOD)
      const before = (await s.record(browser))!
      const oldCookies = browser.jar.header(`${s.base}/session`)
      now += 301
      setClock(now)
      const page = await navigate(browser, `${s.origin}/settings`)
      await browser.jar.fetch(page.location!)
      await passwordSignIn(s, browser, address, GOOD)
      expect((await call(browser, `${s.origin}/settings`)).status).toBe(200)
      const after = (await s.record(browser))!
      expect(after.userId).toBe(before.userId)
      expect(after.authTime).toBeGreaterThanOrEqual(now)
      expect(after.signedInAt).toBe(before.signedInAt)
      expect(after.amr).toEqual(['pwd'])
      expect(browser.jar.header(`${s.base}/session`)).not.toBe(oldCookies)
      if (strategy === 'cookie') {
        expect(after.handle).toBeNull()
        return
      }
      expect(after.handle).toBe(before.handle)
      expect(after.handle).toEqual(expect.any(String))
      const devices = await s.router.listSessions(after.userId)
      expect(devices.map(({ handle }) => handle)).toEqual([before.handle])
      // The token the session had before opens nothing any more.
      const stale = await fetch(`${s.base}/session`, { headers: { cookie: oldCookies! } })
      expect(await stale.json()).toEqual({})
      // The handle still ends it.
      expect(await s.router.revokeSession(after.userId, before.handle!)).toBe(true)
      expect(await browser.session()).toEqual({})
    },
  )

  it('refuses a re-authentication with an identity of nobody, and makes no user of it', async () => {
    const s = await service()
    const browser = new Browser(s)
    const mine = newAddress()
    await signUp(s, browser, mine, GOOD)
    const page = await navigate(browser, `${s.origin}/payout`)
    await browser.jar.fetch(page.location!)
    const stranger = newAddress()
    const body = new URLSearchParams({ csrfToken: await browser.csrfToken(), email: stranger, json: 'true' })
    await browser.jar.fetch(`${s.base}/signin/email`, { method: 'POST', body })
    const link = linkIn(await s.smtp.nextMessage(), s.base, '/callback/email')
    const res = await useLink(s, browser, link)
    expect(res.headers.get('location')).toBe(`${s.base}/error?error=AccessDenied`)
    expect(await s.store.findUserByVerifiedEmail(stranger)).toBeNull()
    expect(await browser.session()).toMatchObject({ user: { email: mine } })
  })
})
