import { restoreClock, useClock } from '../support/clock'
import { captureOutput, expectNoLeaks, RecordingBrowser, type Secrets } from '../support/leaks'
import { signInWith, startOAuthApp, type OAuthApp } from '../support/oauth-setup'

/**
 * No secret reaches a log in an OAuth sign-in that works, and the cookie session it makes: read
 * (renewed once a second old, `updateAge: 1`, so renewed cookies are made too), updated, opened
 * with a cookie that does not open (a debug entry), and signed out. Nothing any of it used is in
 * any log entry, at any level, or in anything written to stdout, stderr or the console.
 */

const logged = captureOutput()
let app: OAuthApp

beforeAll(async () => {
  app = await startOAuthApp({
    logger: logged.logger,
    session: { updateAge: 1, maxLifetime: 60 * 24 * 3600 }, // a lifetime past maxAge: renewal moves the expiry
    callbacks: {
      update: ({ record, newData }) => ({ ...record.data, theme: String((newData as { theme?: unknown })?.theme) }),
    },
  })
})
afterAll(() => app?.stop())

/** Everything a signed-in browser does with its session, after the sign-in. */
async function useSession(browser: RecordingBrowser, secrets: Secrets): Promise<void> {
  const { base } = app.served
  expect(await browser.session()).toMatchObject({ user: { name: 'Alice Example' } })
  const update = await browser.jar.fetch(`${base}/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ csrfToken: await browser.csrfToken(), data: { theme: 'dark' } }),
  })
  expect(update.status).toBe(200)
  expect(await browser.session()).toMatchObject({ user: { name: 'Alice Example' } })

  // A session cookie that does not open: cleared, and logged at debug.
  const sealed = browser.cookie('auth.session-token')!.value
  const tampered = `${sealed.slice(0, -4)}${sealed.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`
  const res = await fetch(`${base}/session`, { headers: { cookie: `auth.session-token=${tampered}` } })
  expect(await res.json()).toEqual({})
  secrets.add('cookie auth.session-token (tampered)', tampered)

  const out = await browser.signOut()
  expect(out.status).toBe(302)
  expect(await browser.session()).toEqual({})
}

describe('an OAuth sign-in that works, then the session it made', () => {
  it.each([
    ['oidc', ['nonce', 'ID token']],
    ['plain', ['ID token']],
    ['passport', []],
  ])('%s: logs none of the secrets it used', async (provider, extra) => {
    const secrets = app.secrets()
    const browser = new RecordingBrowser(app.served, secrets)
    const { res } = await signInWith(app, browser, secrets, provider)
    expect(res.headers.get('location')).toBe(`${app.served.origin}/welcome`)
    await useSession(browser, secrets)

    secrets.expectCollected(
      'service secret',
      'client secret',
      'e-mail local part',
      'state',
      'authorization code',
      'PKCE verifier',
      'access token',
      'refresh token',
      'CSRF token',
      'cookie auth.csrf-token',
      'cookie auth.flow.*',
      'cookie auth.session-token',
      ...extra,
    )
    // The flow was logged (info) and so was the cookie that did not open (debug): the capture
    // sees every level, so a secret at any of them would be found.
    const events = logged.entries.map((entry) => `${entry.level} ${entry.event}`)
    expect(events).toEqual(expect.arrayContaining(['info session.created', 'debug session.invalid', 'info signout']))
    expectNoLeaks(logged.ofThisTest(), secrets)
  })

  it('the session cookie renewed on a read is not logged either', async () => {
    const secrets = app.secrets()
    const browser = new RecordingBrowser(app.served, secrets)
    await signInWith(app, browser, secrets, 'oidc')
    const first = browser.cookie('auth.session-token')!.value
    useClock(Math.floor(Date.now() / 1000) + 5) // past updateAge: the read renews the session
    try {
      await browser.session()
    } finally {
      restoreClock()
    }
    expect(browser.cookie('auth.session-token')!.value).not.toBe(first)
    expectNoLeaks(logged.ofThisTest(), secrets)
  })
})
