import { signInLink } from '../support/smtp'
import { useDemoInBrowser } from './harness'

const browser = useDemoInBrowser({ smtp: true })

describe("the demo in Chromium: the service's error pages", () => {
  it('says the link is no longer valid when the link from the mail is opened again after it signed in', async () => {
    const { origin, base, smtp } = browser.demo
    const tab = await browser.newTab()
    const { page } = tab
    await page.goto(`${base}/signin`)
    await page.locator('#email').fill('someone@example.com')
    await page.getByRole('button', { name: 'Sign in with Email' }).click()
    const link = signInLink(await smtp!.nextMessage(), base)
    await page.goto(link.href)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.waitForURL(`${origin}/`)

    await page.goto(link.href)
    tab.expectStatus(`${base}/error?error=Verification`, 403)
    const [answer] = await Promise.all([
      page.waitForResponse(`${base}/error?error=Verification`),
      page.getByRole('button', { name: 'Sign in' }).click(),
    ])
    expect(answer.status()).toBe(403)
    await expect(page.getByRole('heading').textContent()).resolves.toBe('Unable to sign in')
    await expect(page.locator('main').textContent()).resolves.toContain(
      'The sign-in link is no longer valid. It may have been used already or it may have expired.',
    )
  })

  it('says access was denied when the person cancels at the identity provider, and signs nobody in', async () => {
    const { origin, base, idp } = browser.demo
    const tab = await browser.newTab()
    const { page } = tab
    await page.goto(`${base}/signin`)
    await page.getByRole('button', { name: 'Sign in with Demo' }).click()
    await page.waitForURL((url) => url.origin === idp)

    tab.expectStatus(`${base}/error?error=AccessDenied`, 403)
    const [answer] = await Promise.all([
      page.waitForResponse(`${base}/error?error=AccessDenied`),
      page.getByRole('button', { name: 'Cancel' }).click(),
    ])
    expect(answer.status()).toBe(403)
    await expect(page.getByRole('heading').textContent()).resolves.toBe('Access denied')
    await expect(page.locator('main').textContent()).resolves.toContain('You do not have permission to sign in.')
    await page.goto(`${origin}/`)
    await expect(page.locator('main').textContent()).resolves.toContain('You are not signed in.')
  })
})
