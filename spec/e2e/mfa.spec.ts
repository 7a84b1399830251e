/**
 * The second factor in Chromium, on the demo (`mfa` with an authenticator app, recovery codes and
 * its passkey provider, asked of users who enrolled one). Alice signs in through the demo's
 * identity provider, opens "Set up two-factor sign-in", types the key the setup page shows into
 * the specs' own authenticator (spec/support/totp.ts, RFC 6238) and confirms its code; the page
 * shows ten recovery codes once. Signed out and in again, her first factor lands on the code page,
 * and the app's next code signs her in with two factors (aal 2). A recovery code, typed in
 * capitals without its dashes, does the same once; a code already spent is refused. A passkey she
 * adds signs her in by itself with two factors: no code page. No page sees a script error, a
 * console error or a CSP violation (the harness fails the test on any).
 */
import type { CDPSession, Page } from 'playwright-core'
import { base32Decode, hotp, totpStep } from '../support/totp'
import { useDemoInBrowser, type Tab } from './harness'

const browser = useDemoInBrowser()

/** What the first test enrolled for alice: the app's key, the step of its first code, the recovery codes. */
const enrolled = { key: null as Buffer | null, step: 0, codes: [] as string[] }

/** A platform authenticator that keeps discoverable credentials and verifies its user. */
async function addAuthenticator(tab: Tab): Promise<CDPSession> {
  const cdp = await tab.context.newCDPSession(tab.page)
  await cdp.send('WebAuthn.enable')
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  })
  return cdp
}

/** Alice's first factor, at the demo's identity provider; where the browser lands is the test's to wait for. */
async function passwordAtProvider(page: Page): Promise<void> {
  const { origin, base, idp } = browser.demo
  await page.goto(`${base}/signin?callbackUrl=${encodeURIComponent(`${origin}/`)}`)
  await page.getByRole('button', { name: 'Sign in with Demo' }).click()
  await page.waitForURL((url) => url.origin === idp)
  await page.getByLabel('Username or e-mail').fill('alice')
  await page.getByLabel('Password').fill('any password')
  await page.getByRole('button', { name: 'Sign in' }).click()
}

/** The code page of `{base}/mfa`, where a first factor alone lands once a factor is enrolled. */
async function atCodePage(page: Page): Promise<void> {
  const { origin, base } = browser.demo
  await page.waitForURL(`${base}/mfa?callbackUrl=${encodeURIComponent(`${origin}/`)}`)
  await expect(page.getByRole('heading').textContent()).resolves.toBe('Two-step verification')
}

/** Out through the built-in page, and at the provider too when the session came from there. */
async function signOut(page: Page): Promise<void> {
  const { origin, base, idp } = browser.demo
  await page.goto(`${base}/signout`)
  await page.getByRole('button', { name: 'Sign out' }).click()
  await page.waitForURL((url) => url.href === `${origin}/` || url.origin === idp)
  if (new URL(page.url()).origin === idp) {
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.waitForURL(`${origin}/`)
  }
  await expect(page.locator('main').textContent()).resolves.toContain('You are not signed in.')
}

const assurance = (page: Page) => page.locator('main p.assurance').textContent()
const factors = (page: Page) => page.locator('main ul.factors li').allTextContents()

/** Alice's app key and recovery codes, or a clear failure when the first test did not enrol them. */
function enrolment(): { key: Buffer; step: number; codes: string[] } {
  if (enrolled.key === null) throw new Error('the first test did not enrol an authenticator app')
  return { ...enrolled, key: enrolled.key }
}

describe('the demo in Chromium: two-factor sign-in', () => {
  it('enrols an app by the key the setup page shows, then signs in with the first factor and the app’s code', async () => {
    const { origin, base } = browser.demo
    const { page } = await browser.newTab()
    await passwordAtProvider(page)
    // No factor yet: the first factor alone signs in, as before.
    await page.waitForURL(`${origin}/`)
    await expect(assurance(page)).resolves.toMatch(/^This session was made with one factor \(aal 1\b/)
    await expect(page.locator('main').textContent()).resolves.toContain('You have no second factor yet')

    await page.getByRole('link', { name: 'Set up two-factor sign-in' }).click()
    await page.waitForURL(`${base}/mfa/setup`)
    await expect(page.getByRole('heading').textContent()).resolves.toBe('Set up your authenticator app')
    await expect(page.locator('.qr svg').count()).resolves.toBe(1)
    // The key for manual entry, as a person reads it off the page (grouped or not).
    const secret = (await page.locator('.secret').textContent())!.replace(/\s/g, '')
    expect(secret).toMatch(/^[A-Z2-7]{32}$/)
    const key = base32Decode(secret)
    const step = totpStep(Date.now() / 1000)
    await page.getByLabel('The 6-digit code the app shows').fill(hotp(key, step))
    await page.getByRole('button', { name: 'Turn on' }).click()

    await page.waitForURL(`${base}/mfa/totp/confirm`)
    await expect(page.getByRole('heading').textContent()).resolves.toBe('Your recovery codes')
    const codes = await page.locator('ul.codes li').allTextContents()
    expect(codes).toHaveLength(10)
    expect(new Set(codes).size).toBe(10)
    for (const code of codes) expect(code).toMatch(/^[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}$/)
    Object.assign(enrolled, { key, step, codes })
    await page.getByRole('link', { name: 'Continue' }).click()
    await page.waitForURL(`${origin}/`)
    // The app's first code counts as its first use.
    await expect(factors(page)).resolves.toEqual([
      expect.stringMatching(/^Authenticator app, added .* · last used .* UTC$/),
      expect.stringMatching(/^Recovery codes, added .* · not used yet · 10 left$/),
    ])

    await signOut(page)
    await passwordAtProvider(page)
    await atCodePage(page)
    // The confirmation spent its step: the app's next code (one step ahead is accepted).
    await page.getByLabel('Code from your authenticator app').fill(hotp(key, step + 1))
    await page.getByRole('button', { name: 'Verify', exact: true }).click()
    await page.waitForURL(`${origin}/`)
    await expect(page.locator('main p').first().textContent()).resolves.toBe(
      'Signed in as Alice Example (alice@example.com).',
    )
    await expect(assurance(page)).resolves.toMatch(/^This session was made with two factors \(aal 2; .*\botp, mfa\)\.$/)
  })

  it('refuses a code already spent, then signs in with a recovery code typed in capitals without dashes', async () => {
    const { origin, base } = browser.demo
    const { key, step, codes } = enrolment()
    const tab = await browser.newTab()
    const { page } = tab
    // A refused code answers the page again with 401, which the browser's console reports.
    tab.expectStatus(`${base}/mfa/verify`, 401)
    await passwordAtProvider(page)
    await atCodePage(page)
    // The code that signed in a moment ago: spent, as is any step before it.
    await page.getByLabel('Code from your authenticator app').fill(hotp(key, step + 1))
    await page.getByRole('button', { name: 'Verify', exact: true }).click()
    await expect(page.getByRole('alert').textContent()).resolves.toContain('That code did not work.')
    expect(page.url()).toBe(`${base}/mfa/verify`)

    await page.getByText('Use a recovery code').click()
    await page.getByLabel('Recovery code').fill(codes[0]!.replace(/-/g, '').toUpperCase())
    await page.getByRole('button', { name: 'Verify recovery code' }).click()
    await page.waitForURL(`${origin}/`)
    await expect(assurance(page)).resolves.toMatch(/^This session was made with two factors \(aal 2\b/)
    await expect(factors(page)).resolves.toContainEqual(expect.stringMatching(/^Recovery codes, .* · 9 left$/))

    // The same recovery code does not work twice.
    await signOut(page)
    await passwordAtProvider(page)
    await atCodePage(page)
    await page.getByText('Use a recovery code').click()
    await page.getByLabel('Recovery code').fill(codes[0]!)
    await page.getByRole('button', { name: 'Verify recovery code' }).click()
    await expect(page.getByRole('alert').textContent()).resolves.toContain('That code did not work.')
    await expect(page.locator('main').textContent()).resolves.not.toContain('Signed in as')
  })

  it('signs in with a passkey alone as two factors: no code page', async () => {
    const { origin, base } = browser.demo
    const { codes } = enrolment()
    const tab = await browser.newTab()
    const { page } = tab
    // The button, not the e-mail field's autofill: nothing signs in before it is pressed.
    await tab.context.addInitScript({
      content: 'PublicKeyCredential.isConditionalMediationAvailable = () => Promise.resolve(false)',
    })
    await addAuthenticator(tab)
    // Adding a passkey, once a factor is enrolled, takes a session made with two.
    await passwordAtProvider(page)
    await atCodePage(page)
    await page.getByText('Use a recovery code').click()
    await page.getByLabel('Recovery code').fill(codes[1]!)
    await page.getByRole('button', { name: 'Verify recovery code' }).click()
    await page.waitForURL(`${origin}/`)
    await page.getByRole('button', { name: 'Add a passkey' }).click()
    await page.locator('ul.passkeys li').waitFor()
    await signOut(page)

    const visited: string[] = []
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) visited.push(new URL(frame.url()).pathname)
    })
    await page.goto(`${base}/signin?callbackUrl=${encodeURIComponent(`${origin}/`)}`)
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click()
    await page.waitForURL(`${origin}/`)
    await expect(page.locator('main p').first().textContent()).resolves.toBe(
      'Signed in as Alice Example (alice@example.com).',
    )
    await expect(assurance(page)).resolves.toMatch(
      /^This session was made with two factors \(aal 2; .*\buser, mfa\)\.$/,
    )
    expect(visited.filter((path) => path.startsWith(`${new URL(base).pathname}/mfa`))).toEqual([])
  })
})
