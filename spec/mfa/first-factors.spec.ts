import { recoveryCodes, totp } from '../../lib'
import { signInAs, startAccounts, type AccountsHarness } from '../accounts/accounts-harness'
import { Browser } from '../support/browser'
import { confirm, confirmForm, mailedLink, openLink } from '../support/email-harness'
import { base32Decode } from '../support/totp'
import { codeOf, newAddress, post, startMfaService, stopAll } from './mfa-harness'

/**
 * The second factor follows every first factor, not only the password: an e-mail link, OpenID
 * Connect, plain OAuth 2 and a Passport strategy each end at `{base}/mfa` for a user who enrolled,
 * and make a session only with the code. Codes: the spec's own RFC 6238, of the step after the one
 * enrolment spent (one step either side is taken).
 */

afterEach(stopAll)

const nextCode = (key: Buffer) => codeOf(key, Date.now() + 30_000)

describe('the second factor after every first factor', () => {
  it('after an e-mail link', async () => {
    const service = await startMfaService()
    const address = newAddress()
    /** Opens the mailed link and presses its confirm button: the callback's answer. */
    const byLink = async (browser: Browser) => {
      const page = await openLink(service, browser, await mailedLink(service, browser, address))
      const { csrfToken, ...fields } = confirmForm(page).fields
      return confirm(service, browser, { ...fields, csrfToken: csrfToken! })
    }
    // Signed up by the link (no factor yet: a session at once), then an authenticator app.
    const first = new Browser(service)
    expect((await byLink(first)).headers.get('location')).toBe(`${service.origin}/welcome`)
    const { secret } = (await (await post(service, first, '/mfa/totp/setup', {}, true)).json()) as { secret: string }
    const key = base32Decode(secret)
    expect((await post(service, first, '/mfa/totp/confirm', { code: codeOf(key) }, true)).status).toBe(200)

    const browser = new Browser(service)
    const clicked = await byLink(browser)
    expect(clicked.status).toBe(302)
    expect(clicked.headers.get('location')).toMatch(new RegExp(`^${service.base}/mfa\\?`))
    expect(await browser.session()).toEqual({})
    const verified = await post(service, browser, '/mfa/verify', { factor: 'totp', code: nextCode(key) })
    expect(verified.status).toBe(302)
    expect(await service.record(browser)).toMatchObject({ amr: ['otp', 'mfa'], aal: 2 })
  })

  describe('after OpenID Connect, OAuth 2 and Passport', () => {
    let h: AccountsHarness
    beforeAll(async () => {
      h = await startAccounts({ options: { mfa: { factors: [totp(), recoveryCodes()] } } })
    })
    afterAll(() => h?.stop())

    /** Alice signs in with `provider` (no factor yet), enrols an app, and signs out. */
    async function enrol(provider: string, login: string): Promise<Buffer> {
      const browser = new Browser(h)
      await signInAs(h, browser, provider, login)
      const setup = await post(h, browser, '/mfa/totp/setup', {}, true)
      const { secret } = (await setup.json()) as { secret: string }
      const key = base32Decode(secret)
      expect((await post(h, browser, '/mfa/totp/confirm', { code: codeOf(key) }, true)).status).toBe(200)
      return key
    }

    it.each([
      ['oidc', 'bob'],
      ['plain', 'carol'],
      ['passport', 'dave'],
    ])('after %s', async (provider, login) => {
      const key = await enrol(provider, login)
      const browser = new Browser(h)
      const back = await signInAs(h, browser, provider, login)
      expect(back.status).toBe(302)
      expect(back.headers.get('location')).toMatch(new RegExp(`^${h.base}/mfa\\?`))
      expect(await h.whoami(browser)).toBeNull()
      expect((await post(h, browser, '/mfa/verify', { factor: 'totp', code: '000000' })).status).toBe(401)
      expect(await h.whoami(browser)).toBeNull()
      const verified = await post(h, browser, '/mfa/verify', { factor: 'totp', code: nextCode(key) })
      expect(verified.status).toBe(302)
      expect(await h.whoami(browser)).not.toBeNull()
    })
  })
})
