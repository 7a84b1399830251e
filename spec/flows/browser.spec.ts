import type { Browser } from 'playwright-core'
import { launchChromium } from '../support/chromium'
import { startHarness, type Harness } from '../support/oauth-harness'

let h: Harness
let chromium: Browser
beforeAll(async () => {
  ;[h, chromium] = await Promise.all([startHarness(), launchChromium()])
})
afterAll(async () => {
  await chromium?.close()
  await h?.stop()
})

describe('a person in a real browser', () => {
  it('signs in from the built-in page through the identity provider, then signs out', async () => {
    const context = await chromium.newContext()
    const page = await context.newPage()
    await page.goto(`${h.base}/signin?callbackUrl=%2Fwelcome`)
    expect(await page.title()).toBe('Sign in')
    await page.getByRole('button', { name: 'Sign in with Demo' }).click()

    await page.waitForURL((url) => url.origin === h.idp.issuer)
    await page.getByLabel('Username or e-mail').fill('alice')
    await page.getByLabel('Password').fill('anything')
    await page.getByRole('button', { name: 'Sign in' }).click()

    await page.waitForURL(`${h.origin}/welcome`)
    const session = await (await page.request.get(`${h.base}/session`)).json()
    expect(session.user).toMatchObject({ name: 'Alice Example', email: 'alice@example.com' })
    const cookies = await context.cookies(h.origin)
    expect(cookies.find((cookie) => cookie.name === 'auth.session-token')).toMatchObject({
      httpOnly: true,
      sameSite: 'Lax',
    })
    expect(cookies.filter((cookie) => cookie.name.startsWith('auth.flow.'))).toEqual([])

    await page.goto(`${h.base}/signout`)
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.waitForURL(`${h.origin}/`)
    expect(await (await page.request.get(`${h.base}/session`)).json()).toEqual({})
    await context.close()
  })

  it('comes back to the sign-in page with a message when the user cancels at the provider', async () => {
    const context = await chromium.newContext()
    const page = await context.newPage()
    await page.goto(`${h.base}/signin`)
    await page.getByRole('button', { name: 'Sign in with Demo' }).click()
    await page.waitForURL((url) => url.origin === h.idp.issuer)
    await page.getByRole('button', { name: 'Cancel' }).click()
    await page.waitForURL(/\/api\/auth\/error\?error=AccessDenied/)
    expect(await page.getByRole('heading').first().textContent()).toMatch(/denied/i)
    await context.close()
  })

  it('renders the sign-in page under a strict CSP with no console errors', async () => {
    const context = await chromium.newContext()
    const page = await context.newPage()
    const problems: string[] = []
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text())
    })
    page.on('pageerror', (error) => problems.push(error.message))
    const response = await page.goto(`${h.base}/signin?error=OAuthCallback`)
    expect(response?.headers()['content-security-policy']).toContain("default-src 'none'")
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/\w/)
    // The stylesheet applied (the card has a max width): styles load from the package's own route.
    const maxWidth = await page
      .locator('main')
      .evaluate(
        (main) =>
          (globalThis as unknown as { getComputedStyle(e: unknown): { maxWidth: string } }).getComputedStyle(main)
            .maxWidth,
      )
    expect(maxWidth).not.toBe('none')
    expect(problems).toEqual([])
    await context.close()
  })
})
