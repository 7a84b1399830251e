import { signInLink } from '../support/smtp'
import { useDemoInBrowser } from './harness'

const browser = useDemoInBrowser({ smtp: true })

describe('the demo in Chromium: signing in by e-mail', () => {
  it('signs a newcomer in with the link from the mail: the address typed on the built-in sign-in page, the link opened, the confirm step', async () => {
    const { origin, base, smtp } = browser.demo
    const { page } = await browser.newTab()
    await page.goto(`${origin}/`)
    await page.getByRole('link', { name: 'Sign in', exact: true }).click()
    await page.locator('#email').fill('someone@example.com')
    await page.getByRole('button', { name: 'Sign in with Email' }).click()
    await page.waitForURL(`${base}/verify-request?provider=email&type=email`)
    await expect(page.getByRole('heading').textContent()).resolves.toBe('Check your email')

    const mail = await smtp!.nextMessage()
    expect(mail.to).toEqual(['someone@example.com'])
    const link = signInLink(mail, base)
    // The link spends nothing by itself: a page asks the person to go on.
    await page.goto(link.href)
    await expect(page.locator('main').textContent()).resolves.toContain('Continue signing in as someone@example.com')
    await page.getByRole('button', { name: 'Sign in' }).click()

    await page.waitForURL(`${origin}/`)
    await expect(page.locator('main p').first().textContent()).resolves.toBe('Signed in as someone@example.com.')
  })
})
