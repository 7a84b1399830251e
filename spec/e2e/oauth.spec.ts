import { pictureWidth, useDemoInBrowser } from './harness'

const browser = useDemoInBrowser()

describe('the demo in Chromium: signing in with the identity provider', () => {
  it('signs alice in from the home page through the built-in sign-in page and the provider, then out through the built-in sign-out page and at the provider', async () => {
    const { origin, base, idp } = browser.demo
    const { page } = await browser.newTab()
    await page.goto(`${origin}/`)
    await expect(page.locator('main').textContent()).resolves.toContain('You are not signed in.')

    await page.getByRole('link', { name: 'Sign in', exact: true }).click()
    await page.waitForURL(`${base}/signin`)
    await page.getByRole('button', { name: 'Sign in with Demo' }).click()

    await page.waitForURL((url) => url.origin === idp)
    await page.getByLabel('Username or e-mail').fill('alice')
    await page.getByLabel('Password').fill('any password')
    await page.getByRole('button', { name: 'Sign in' }).click()

    await page.waitForURL(`${origin}/`)
    await expect(page.locator('main p').first().textContent()).resolves.toBe(
      'Signed in as Alice Example (alice@example.com).',
    )
    // The provider's picture, loaded from the provider (the page's CSP allows it, sending no Referer).
    const picture = page.locator('main img')
    await expect(picture.getAttribute('src')).resolves.toBe(`${idp}/avatar/alice.svg`)
    await expect(picture.getAttribute('referrerpolicy')).resolves.toBe('no-referrer')
    await expect(pictureWidth(page)).resolves.toBe(64)

    await page.getByRole('link', { name: 'Sign out' }).click()
    await page.waitForURL(`${base}/signout`)
    await page.getByRole('button', { name: 'Sign out' }).click()
    // The demo signs out at its provider too (`logout: 'provider'`): the provider's own page, then back.
    await page.waitForURL((url) => url.origin === idp)
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.waitForURL(`${origin}/`)
    await expect(page.locator('main').textContent()).resolves.toContain('You are not signed in.')

    // The provider's session ended with ours: signing in again asks for the password.
    await page.getByRole('link', { name: 'Sign in', exact: true }).click()
    await page.waitForURL(`${base}/signin`)
    await page.getByRole('button', { name: 'Sign in with Demo' }).click()
    await page.waitForURL((url) => url.origin === idp)
    await expect(page.getByLabel('Password').isVisible()).resolves.toBe(true)
  })
})
