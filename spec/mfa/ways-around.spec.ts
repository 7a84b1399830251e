import { Browser } from '../support/browser'
import { formTo, GOOD, linkIn, passwordSignIn, submit } from '../password/password-harness'
import { codeOf, enrolledUser, newAddress, post, startMfaService, stopAll, type MfaService } from './mfa-harness'

/**
 * No cheaper way around the second factor: once a user enrolled one, a session made with the first
 * factor alone (here: the one they enrolled from, signed in before) changes nothing of how they
 * sign in, and a reset link makes no session. Each is sent to sign in again, which asks for the code.
 */

afterEach(stopAll)
const NEW = 'a brand new passphrase 2026'

/** A user who signed up and enrolled from `browser`, whose session there proved the password alone. */
async function enrolledFromOldSession(service: MfaService) {
  const address = newAddress()
  const browser = new Browser(service)
  const enrolled = await enrolledUser(service, browser, address)
  expect(await service.record(browser)).toMatchObject({ aal: 1 })
  return { address, browser, ...enrolled }
}

/** A form post sent to the sign-in page (302): the `error` it carries. */
const sentToSignIn = (res: Response) => {
  expect(res.status).toBe(302)
  const url = new URL(res.headers.get('location')!)
  expect(url.pathname).toMatch(/\/signin$/)
  return url.searchParams.get('error')
}

describe('the ways around a second factor, closed', () => {
  it('a password change from a session without the second factor', async () => {
    const service = await startMfaService()
    const { address, browser } = await enrolledFromOldSession(service)
    const res = await post(service, browser, '/password/change', { currentPassword: GOOD, newPassword: NEW })
    expect(sentToSignIn(res)).toBe('ReauthRequired')
    expect((await passwordSignIn(service, new Browser(service), address, GOOD)).status).toBe(200)
    expect(service.events.some(({ name }) => name === 'passwordChanged')).toBe(false)
  })

  it('unlinking a way in, and starting a link, from such a session', async () => {
    const service = await startMfaService()
    const { browser } = await enrolledFromOldSession(service)
    const [account] = await service.router.listAccounts((await service.record(browser))!.userId)
    const res = await post(service, browser, '/unlink', { accountId: account!.id, currentPassword: GOOD })
    expect(sentToSignIn(res)).toBe('ReauthRequired')
    const link = await post(service, browser, '/signin/email?link=true', { email: newAddress() })
    expect(sentToSignIn(link)).toBe('ReauthRequired')
  })

  it('adding, removing or renewing a factor from such a session', async () => {
    const service = await startMfaService()
    const { browser } = await enrolledFromOldSession(service)
    const [factor] = await service.router.listFactors((await service.record(browser))!.userId)
    expect(sentToSignIn(await post(service, browser, '/mfa/remove', { factorId: factor!.id }))).toBe('ReauthRequired')
    expect(sentToSignIn(await post(service, browser, '/mfa/totp/setup', {}))).toBe('ReauthRequired')
    expect(sentToSignIn(await post(service, browser, '/mfa/recovery-codes', {}))).toBe('ReauthRequired')
    expect(await service.router.listFactors((await service.record(browser))!.userId)).toHaveLength(2)
  })

  it('a password reset: the link sets the password and makes no session; signing in asks for the code', async () => {
    const service = await startMfaService()
    const { address, key } = await enrolledFromOldSession(service)
    const browser = new Browser(service)
    await submit(browser, service.base, '/password/forgot', { email: address, csrfToken: await browser.csrfToken() })
    const link = linkIn(await service.smtp.nextMessage(), service.base, '/password/reset')
    const page = await browser.jar.fetch(link, {}, { crossSite: true })
    const form = formTo(await page.text(), service.base, '/password/reset')
    const reset = await submit(browser, service.base, '/password/reset', { ...form.fields, password: NEW })
    expect(reset.headers.get('location')).toMatch(/\/password\/done\?kind=reset/)
    expect(await browser.session()).toEqual({})
    const signedIn = await passwordSignIn(service, browser, address, NEW)
    expect(((await signedIn.json()) as { url: string }).url).toMatch(new RegExp(`^${service.base}/mfa\\?`))
    expect(await browser.session()).toEqual({})
    const verified = await post(service, browser, '/mfa/verify', {
      factor: 'totp',
      code: codeOf(key, Date.now() + 30_000),
    })
    expect(verified.status).toBe(302)
    expect(await service.record(browser)).toMatchObject({ aal: 2 })
  })

  it('a session made with the second factor may change them', async () => {
    const service = await startMfaService()
    const { address, key } = await enrolledFromOldSession(service)
    const browser = new Browser(service)
    await passwordSignIn(service, browser, address, GOOD)
    await post(service, browser, '/mfa/verify', { factor: 'totp', code: codeOf(key, Date.now() + 30_000) })
    const res = await post(service, browser, '/password/change', { currentPassword: GOOD, newPassword: NEW })
    expect(res.status).toBe(302)
    expect(res.headers.get('location')).toMatch(/\/password\/done\?kind=changed/)
  })
})
