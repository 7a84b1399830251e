import type { Locator, Page } from 'playwright-core'
import { pictureWidth, useDemoInBrowser } from './harness'

// Another base path than next-auth's default (/api/auth): the page works only if SessionProvider
// is given the demo's.
const browser = useDemoInBrowser({ basePath: '/myapp/auth' })

/** What sets the built-in pages' `.button` apart from a browser's default button, for the button named `name`. */
const buttonLook = (page: Page, name: string) =>
  page.evaluate(`(() => {
    const button = [...document.querySelectorAll('button')].find((element) => element.textContent.trim() === ${JSON.stringify(name)})
    const style = getComputedStyle(button)
    return { fullWidth: style.width === getComputedStyle(button.parentElement).width, radius: style.borderRadius, minHeight: style.minHeight }
  })()`)
const BUILT_IN_BUTTON = { fullWidth: true, radius: '8px', minHeight: '44px' }

describe("the demo's client page in Chromium: React and next-auth/react against the service", () => {
  it('signs in with signIn(), renames the user with update(), and signs out with signOut(), the page following each time', async () => {
    const { origin, base, idp } = browser.demo
    const { page } = await browser.newTab()
    await page.goto(`${origin}/`)
    await page.getByRole('link', { name: 'The same with the NextAuth.js client library' }).click()
    await page.waitForURL(`${origin}/client`)
    const status = page.getByTestId('status')
    const user = page.getByTestId('user')
    await expectText(status, 'unauthenticated')
    await expectText(user, 'You are not signed in.')
    await expect(buttonLook(page, 'Sign in with Demo')).resolves.toEqual(BUILT_IN_BUTTON)

    await page.getByRole('button', { name: 'Sign in with Demo' }).click()
    await page.waitForURL((url) => url.origin === idp)
    await page.getByLabel('Username or e-mail').fill('alice')
    await page.getByLabel('Password').fill('any password')
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.waitForURL(`${origin}/client`)
    await expectText(status, 'authenticated')
    await expectText(user, 'Signed in as Alice Example (alice@example.com).')
    // The picture from the provider, loaded (the CSP allows it), and buttons in the built-in pages' look.
    await expect(pictureWidth(page)).resolves.toBe(64)
    for (const name of ['Change name', 'Sign out']) {
      await expect(buttonLook(page, name)).resolves.toEqual(BUILT_IN_BUTTON)
    }

    await page.getByLabel('New name').fill('New Name')
    await page.getByRole('button', { name: 'Change name' }).click()
    await expectText(user, 'Signed in as New Name (alice@example.com).')
    // Kept by the service, not only by the page: the demo's home reads it from the session cookie.
    await page.goto(`${origin}/`)
    await expect(page.locator('main p').first().textContent()).resolves.toBe(
      'Signed in as New Name (alice@example.com).',
    )
    await page.goto(`${origin}/client`)
    await expectText(user, 'Signed in as New Name (alice@example.com).')

    await page.getByRole('button', { name: 'Sign out' }).click()
    // signOut() follows the service's `url`: the provider's sign-out page (`logout: 'provider'`), then back here.
    await page.waitForURL((url) => url.origin === idp)
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.waitForURL(`${origin}/client`)
    await expectText(status, 'unauthenticated')
    await expectText(user, 'You are not signed in.')
    expect(page.url()).toBe(`${origin}/client`)
    expect(await (await page.request.get(`${base}/session`)).json()).toEqual({})
  })

  it('runs its script under a CSP of its own that refuses any other script (which the watch reports)', async () => {
    const { origin } = browser.demo
    const tab = await browser.newTab()
    const response = await tab.page.goto(`${origin}/client`)
    expect(response?.headers()['content-security-policy']).toBe(
      `default-src 'none'; style-src 'self'; base-uri 'none'; frame-ancestors 'none'; script-src 'self'; connect-src 'self'; img-src https: ${browser.demo.idp}`,
    )
    await expectText(tab.page.getByTestId('status'), 'unauthenticated')
    expect(tab.takeProblems()).toEqual([])

    const ran = await tab.page.evaluate(`(() => {
      const script = document.createElement('script')
      script.textContent = 'window.injected = true'
      document.head.append(script)
      return window.injected === true
    })()`)
    expect(ran).toBe(false)
    // The violation's event and its console line arrive on their own, in either order.
    const seen: string[] = []
    for (const deadline = Date.now() + 5000; seen.length < 2 && Date.now() < deadline;) {
      await tab.page.waitForTimeout(50)
      seen.push(...tab.takeProblems())
    }
    expect(seen.sort()).toEqual([
      expect.stringMatching(new RegExp(`^CSP violation on ${literal(origin)}/client: script-src-elem blocked inline`)),
      expect.stringMatching(new RegExp(`^console error on ${literal(origin)}/client: .*Content Security Policy`)),
    ])
  })
})

/** Waits (the page's default time-out) until `locator` reads exactly `text`; a clear message otherwise. */
async function expectText(locator: Locator, text: string): Promise<void> {
  try {
    await locator.filter({ hasText: new RegExp(`^${literal(text)}$`) }).waitFor()
  } catch {
    throw new Error(`expected "${text}", the page shows "${await locator.textContent()}"`)
  }
}

const literal = (text: string) => text.replace(/[$()*+.?[\\\]^{|}]/g, '\\$&')
