/**
 * Passkeys in Chromium with its virtual authenticator (DevTools protocol): alice signs in through
 * the demo's identity provider, adds a passkey on the home page, signs out, and signs in again with
 * the built-in page's "Sign in with a passkey" button, then with the browser's autofill of the
 * e-mail field; the home page's script sends a session too old to add one to sign in again. No page
 * sees a script error, a console error or a CSP violation (the harness fails the test on any), and
 * every page but the sign-in page and the demo's home page runs no script.
 */
import type { CDPSession, Page } from 'playwright-core'
import { useDemoInBrowser, type Tab } from './harness'

const browser = useDemoInBrowser()

/**
 * Alice's passkeys so far, carried to each test's new authenticator: once she has one, the demo
 * (`mfa` lists its passkey provider) asks it of her after the identity provider, on `{base}/mfa`.
 */
let alicesPasskeys: Awaited<ReturnType<typeof credentialsOf>> = []

interface Authenticator {
  readonly cdp: CDPSession
  readonly authenticatorId: string
}

const credentialsOf = async ({ cdp, authenticatorId }: Authenticator) =>
  (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials

/** Keeps the passkeys this test added (after their last use: the counters move), for the tests after it. */
async function keepPasskeys(authenticator: Authenticator): Promise<void> {
  const held = await credentialsOf(authenticator)
  const ids = new Set(held.map(({ credentialId }) => credentialId))
  alicesPasskeys = [...alicesPasskeys.filter(({ credentialId }) => !ids.has(credentialId)), ...held]
}

/**
 * After the identity provider: home (`target`), or the second step, passed with her passkey (put
 * on this test's authenticator only now: on the sign-in page, its autofill would sign her in first).
 */
async function throughSecondStep(page: Page, target: string, authenticator: Authenticator): Promise<void> {
  await page.waitForURL((url) => url.href === target || url.pathname.endsWith('/mfa'))
  if (page.url() === target) return
  const { cdp, authenticatorId } = authenticator
  // Her newest (an authenticator holds one passkey of a user for a site).
  await cdp.send('WebAuthn.addCredential', { authenticatorId, credential: alicesPasskeys.at(-1)! })
  await page.getByRole('button', { name: 'Use a passkey' }).click()
  await page.waitForURL(target)
  // Their counters as they are now; off this authenticator again, which may then make a new one
  // for her (an authenticator refuses a second passkey of a user it holds one of).
  await keepPasskeys(authenticator)
  await cdp.send('WebAuthn.clearCredentials', { authenticatorId })
}

/** A platform authenticator that keeps discoverable credentials and verifies its user. */
async function addAuthenticator(tab: Tab): Promise<{ cdp: CDPSession; authenticatorId: string }> {
  const cdp = await tab.context.newCDPSession(tab.page)
  await cdp.send('WebAuthn.enable')
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  })
  return { cdp, authenticatorId }
}

async function signInAsAlice(page: Page, authenticator: Authenticator): Promise<void> {
  const { origin, base, idp } = browser.demo
  await page.goto(`${base}/signin?callbackUrl=${encodeURIComponent(`${origin}/`)}`)
  await page.getByRole('button', { name: 'Sign in with Demo' }).click()
  await page.waitForURL((url) => url.origin === idp)
  await page.getByLabel('Username or e-mail').fill('alice')
  await page.getByLabel('Password').fill('any password')
  await page.getByRole('button', { name: 'Sign in' }).click()
  await throughSecondStep(page, `${origin}/`, authenticator)
}

async function signOut(page: Page): Promise<void> {
  const { origin, base, idp } = browser.demo
  await page.goto(`${base}/signout`)
  await page.getByRole('button', { name: 'Sign out' }).click()
  // A session the demo's provider signed in ends there too (`logout: 'provider'`): its page, then back.
  // A passkey's session ends here only.
  await page.waitForURL((url) => url.href === `${origin}/` || url.origin === idp)
  if (new URL(page.url()).origin === idp) {
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.waitForURL(`${origin}/`)
  }
  await expect(page.locator('main').textContent()).resolves.toContain('You are not signed in.')
}

const signedInAs = (page: Page) => page.locator('main p').first().textContent()

describe('the demo in Chromium: passkeys', () => {
  it('adds a passkey for a signed-in user, who signs in with it from the button after signing out', async () => {
    const { origin, base } = browser.demo
    const tab = await browser.newTab()
    const { page } = tab
    // A browser without passkey autofill: the button is the only way, and nothing answers before it.
    await tab.context.addInitScript({
      content: 'PublicKeyCredential.isConditionalMediationAvailable = () => Promise.resolve(false)',
    })
    const { cdp, authenticatorId } = await addAuthenticator(tab)
    await signInAsAlice(page, { cdp, authenticatorId })
    await expect(page.locator('main').textContent()).resolves.toContain('You have no passkey yet.')

    await page.getByRole('button', { name: 'Add a passkey' }).click()
    await page.locator('ul.passkeys li').waitFor()
    await expect(page.locator('ul.passkeys li').count()).resolves.toBe(1)
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId })
    expect(credentials).toHaveLength(1)
    expect(credentials[0]).toMatchObject({ isResidentCredential: true, rpId: 'localhost' })
    // The user handle on the authenticator is random: neither alice's address nor her user id.
    const handle = Buffer.from(credentials[0]!.userHandle!, 'base64').toString('latin1')
    expect(handle).not.toMatch(/alice/)

    await signOut(page)
    await page.goto(`${base}/signin?callbackUrl=${encodeURIComponent(`${origin}/`)}`)
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click()
    await page.waitForURL(`${origin}/`)
    await expect(signedInAs(page)).resolves.toBe('Signed in as Alice Example (alice@example.com).')
    const after = await cdp.send('WebAuthn.getCredentials', { authenticatorId })
    expect(after.credentials[0]!.signCount).toBeGreaterThan(credentials[0]!.signCount)
    await keepPasskeys({ cdp, authenticatorId })
  })

  it('offers the passkey in the autofill of the e-mail field (conditional UI)', async () => {
    const { origin, base } = browser.demo
    const tab = await browser.newTab()
    const { page } = tab
    const { cdp, authenticatorId } = await addAuthenticator(tab)
    await signInAsAlice(page, { cdp, authenticatorId })
    await page.getByRole('button', { name: 'Add a passkey' }).click()
    // Alice's second passkey.
    await page.locator('ul.passkeys li', { hasText: 'not used yet' }).waitFor()
    await signOut(page)

    const signinPage = await page.request.get(`${base}/signin`)
    expect(await signinPage.text()).toContain('autocomplete="email webauthn"')
    // Chromium's virtual authenticator picks the passkey offered in the e-mail field's autofill at
    // once: the page signs in with no button pressed.
    await page.goto(`${base}/signin?callbackUrl=${encodeURIComponent(`${origin}/`)}`)
    await page.waitForURL(`${origin}/`)
    await expect(signedInAs(page)).resolves.toBe('Signed in as Alice Example (alice@example.com).')
    await keepPasskeys({ cdp, authenticatorId })
  })

  it("works through NextAuth v5's own passkey client (next-auth/webauthn) in the demo's React page", async () => {
    const { origin, idp } = browser.demo
    const tab = await browser.newTab()
    const { page } = tab
    const { cdp, authenticatorId } = await addAuthenticator(tab)
    const user = page.getByTestId('user')
    await page.goto(`${origin}/client`)
    await page.getByRole('button', { name: 'Sign in with Demo' }).click()
    await page.waitForURL((url) => url.origin === idp)
    await page.getByLabel('Username or e-mail').fill('alice')
    await page.getByLabel('Password').fill('any password')
    await page.getByRole('button', { name: 'Sign in' }).click()
    await throughSecondStep(page, `${origin}/client`, { cdp, authenticatorId })
    await expect(user.textContent()).resolves.toBe('Signed in as Alice Example (alice@example.com).')

    // signIn('passkey', { action: 'register' }): the client's own ceremony, and back to this page.
    const registered = page.waitForResponse((res) => new URL(res.url()).pathname.endsWith('/callback/passkey'))
    // The client then loads the answer's url (this same page): wait for that load, or a goto would race it.
    const reloaded = page.waitForEvent('load')
    await page.getByRole('button', { name: 'Add a passkey' }).click()
    expect((await registered).status()).toBe(200)
    await reloaded
    expect(page.url()).toBe(`${origin}/client`)
    await page.goto(`${origin}/`)
    await expect(page.locator('ul.passkeys li', { hasText: 'not used yet' }).count()).resolves.toBe(1)
    await page.goto(`${origin}/client`)

    // The client's signOut() follows the answer's url: the provider's logout (`logout: 'provider'`), then back.
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.waitForURL((url) => url.origin === idp)
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.waitForURL(`${origin}/client`)
    await page.getByText('You are not signed in.').waitFor()
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click()
    await page.getByText('Signed in as Alice Example (alice@example.com).').waitFor()
    expect(page.url()).toBe(`${origin}/client`)
    // Kept: the next test signs in with it through the demo's own pages, whose script sends back the
    // user handle this client wrote as text (lib/features/passkey/answer.ts `sameHandle`).
    await keepPasskeys({ cdp, authenticatorId })
  })

  it('sends a user whose session signed in too long ago to the sign-in page, which comes back to this page', async () => {
    const { origin, base } = browser.demo
    const tab = await browser.newTab()
    const { page } = tab
    const authenticator = await addAuthenticator(tab)
    await signInAsAlice(page, authenticator)
    // The demo's session is fresh: the service's answer to an old one (spec/flows/passkey-registration
    // .spec.ts) is played to the page's script as the service sends it.
    const options = `${base}/webauthn-options/passkey?action=register&callbackUrl=${encodeURIComponent(`${origin}/`)}`
    const signInAgain = `${base}/signin?${new URLSearchParams({ callbackUrl: `${origin}/`, error: 'SessionRequired' }).toString()}`
    tab.expectStatus(options, 401)
    await page.route(options, (route) =>
      route.fulfill({ status: 401, json: { error: 'SessionRequired', url: signInAgain } }),
    )
    await page.getByRole('button', { name: 'Add a passkey' }).click()
    await page.waitForURL(signInAgain)
    await page.getByText('Please sign in to access this page.').waitFor()
  })

  it('keeps every page but the sign-in page and the home page without script', async () => {
    const { origin, base } = browser.demo
    const tab = await browser.newTab()
    const { page } = tab
    tab.expectStatus(`${base}/error?error=Verification`, 403)
    const signin = await page.goto(`${base}/signin`)
    expect(signin!.headers()['content-security-policy']).toContain(`script-src ${base}/assets/passkey.js`)
    for (const path of ['/signout', '/error?error=Verification', '/verify-request?provider=email&type=email']) {
      const res = await page.goto(`${base}${path}`)
      expect(res!.headers()['content-security-policy']).not.toContain('script-src')
      await expect(page.locator('script').count()).resolves.toBe(0)
    }
    const home = await page.goto(`${origin}/`)
    // Signed out: the home page has no passkey form and no script.
    expect(home!.headers()['content-security-policy']).not.toContain('script-src')
  })
})
