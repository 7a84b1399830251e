import type { Locator, Page } from 'playwright-core'
import { linkIn } from '../password/password-harness'
import { useDemoInBrowser } from './harness'

// The demo's local range API knows BREACHED as breached: the demo checks there, never on the internet.
const BREACHED = 'copper-lantern-meadow-87'
const browser = useDemoInBrowser({ smtp: true, breached: [BREACHED] })
const PASSWORD = 'violet-harbour-tractor-41'

/** Waits until `locator` reads exactly `text` (10 s at most); a clear message otherwise. */
async function expectText(locator: Locator, text: string): Promise<void> {
  for (const started = Date.now(); Date.now() - started < 10_000;) {
    if ((await locator.textContent().catch(() => null)) === text) return
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`expected "${text}", the page shows "${await locator.textContent()}"`)
}

/** Opens the built-in sign-up page from the demo's home page, or from the built-in sign-in page. */
async function openSignUp(page: Page, from: 'home' | 'sign-in'): Promise<void> {
  const { origin, base } = browser.demo
  await page.goto(from === 'home' ? `${origin}/` : `${base}/signin?callbackUrl=${encodeURIComponent(`${origin}/`)}`)
  await page.getByRole('link', { name: 'Create an account' }).click()
  await page.waitForURL(`${base}/password/signup${from === 'home' ? '' : '?callbackUrl=*'}`)
}

/** Signs up `address` through the built-in pages: the form, the mailed link, the confirm button. */
async function signUp(page: Page, address: string, from: 'home' | 'sign-in'): Promise<void> {
  const { origin, smtp, base } = browser.demo
  await openSignUp(page, from)
  await page.locator('input[name="email"]').fill(address)
  await page.locator('input[name="password"]').fill(PASSWORD)
  await page.getByRole('button', { name: 'Create account' }).click()
  await page.waitForURL((url) => url.pathname.endsWith('/password/sent'))
  const mail = await smtp!.nextMessage()
  expect(mail.to).toEqual([address])
  await page.goto(linkIn(mail, base, '/password/confirm').href)
  await page.locator('#confirm-password').fill(PASSWORD)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.waitForURL(`${origin}/`)
  await expect(page.locator('main p').first().textContent()).resolves.toBe(`Signed in as ${address}.`)
}

async function signOut(page: Page): Promise<void> {
  const { origin, base } = browser.demo
  await page.goto(`${base}/signout?callbackUrl=${encodeURIComponent(`${origin}/`)}`)
  await page.getByRole('button', { name: 'Sign out' }).click()
  await page.waitForURL(`${origin}/`)
}

describe('the demo in Chromium: passwords', () => {
  it('signs up through the built-in pages, then signs in on the built-in sign-in page’s password form', async () => {
    const { origin, base } = browser.demo
    const { page } = await browser.newTab()
    const address = 'pat@example.com'
    await signUp(page, address, 'sign-in')
    // The home page links the change form beside the ways in: this user has a password to change.
    await page.getByRole('link', { name: 'Change password', exact: true }).click()
    await page.waitForURL(`${base}/password/change`)
    await expect(page.getByRole('heading').textContent()).resolves.toBe('Change your password')
    await signOut(page)
    await page.goto(`${base}/signin?callbackUrl=${encodeURIComponent(`${origin}/`)}`)
    await page.locator('#credentials-identifier').fill(address)
    await page.locator('#credentials-password').fill(PASSWORD)
    await page
      .locator('form', { has: page.locator('#credentials-password') })
      .getByRole('button')
      .click()
    await page.waitForURL(`${origin}/`)
    await expect(page.locator('main p').first().textContent()).resolves.toBe(`Signed in as ${address}.`)
  })

  it('signs in from the React page with NextAuth’s v4 and v5 clients: a wrong password shows the refusal, the right one signs in', async () => {
    const { origin, base } = browser.demo
    const tab = await browser.newTab()
    const { page } = tab
    // NextAuth's refusal is a 401, which the browser's console reports: expected here (v5 adds a `?`).
    tab.expectStatus(`${base}/callback/credentials`, 401)
    tab.expectStatus(`${base}/callback/credentials?`, 401)
    const address = 'robin@example.com'
    await signUp(page, address, 'home')
    for (const button of ['Sign in with password', 'Sign in with password (v5 client)']) {
      await signOut(page)
      await page.goto(`${origin}/client`)
      const status = page.getByTestId('status')
      await expectText(status, 'unauthenticated')
      await page.getByLabel('Email', { exact: true }).fill(address)
      await page.getByLabel('Password', { exact: true }).fill('not the password at all')
      await page.getByRole('button', { name: button, exact: true }).click()
      await expect(page.getByRole('alert').textContent()).resolves.toContain('did not sign you in')
      await expectText(status, 'unauthenticated')
      await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
      await page.getByRole('button', { name: button, exact: true }).click()
      await expectText(status, 'authenticated')
      await expectText(page.getByTestId('user'), `Signed in as ${address}.`)
    }
  })

  it('refuses at sign-up a password its range API (BREACHED_RANGE_URL) knows as breached, and says why', async () => {
    const tab = await browser.newTab()
    const { page } = tab
    // The form again, naming the rule, answers 400: the browser's console reports it.
    tab.expectStatus(`${browser.demo.base}/password/signup`, 400)
    const asked = browser.demo.range.prefixes.length
    await openSignUp(page, 'home')
    await page.locator('input[name="email"]').fill('sam@example.com')
    await page.locator('input[name="password"]').fill(BREACHED)
    await page.getByRole('button', { name: 'Create account' }).click()
    await expect(page.locator('main').textContent()).resolves.toContain(
      'It has appeared in a data breach, so attackers try it first.',
    )
    expect(browser.demo.range.prefixes.length).toBe(asked + 1)
  })
})
