import { Browser } from '../support/browser'
import { signInLink } from '../support/smtp'
import { confirm, confirmForm, openLink, requestLink } from '../support/email-harness'
import {
  GOOD,
  newAddress,
  passwordSignIn,
  sessionUser,
  signUp,
  startPasswordService,
  stopAll,
  submit,
  type PasswordService,
} from './password-harness'

afterEach(stopAll)
const NEW = 'a brand new passphrase 2026'

async function change(service: PasswordService, browser: Browser, fields: Record<string, string>): Promise<Response> {
  return submit(browser, service.base, '/password/change', {
    csrfToken: await browser.csrfToken(),
    callbackUrl: '/welcome',
    ...fields,
  })
}

describe('changing a password', () => {
  it('needs the current password even right after signing in; the other sessions end, this one stays', async () => {
    const service = await startPasswordService()
    const address = newAddress()
    const here = new Browser(service)
    await signUp(service, here, address, GOOD)
    const elsewhere = new Browser(service)
    expect((await passwordSignIn(service, elsewhere, address, GOOD)).status).toBe(200)
    // A copied session cookie, however fresh, cannot change the password without it.
    expect((await change(service, here, { newPassword: NEW })).status).toBe(400)
    const res = await change(service, here, { newPassword: NEW, currentPassword: GOOD })
    expect(res.status).toBe(302)
    expect(res.headers.get('location')).toMatch(`${service.base}/password/done?kind=changed`)
    expect(await sessionUser(service, here)).toMatchObject({ email: address })
    expect(await sessionUser(service, elsewhere)).toBeNull()
    expect(service.events.filter(({ name }) => name === 'passwordChanged').map(({ message }) => message.added)).toEqual(
      [false],
    )
    expect((await passwordSignIn(service, new Browser(service), address, NEW)).status).toBe(200)
    expect((await passwordSignIn(service, new Browser(service), address, GOOD)).status).toBe(401)
  })

  it('long after signing in asks for the current password, and refuses a wrong one', async () => {
    const service = await startPasswordService({ accounts: { linkMaxAge: 1 } })
    const address = newAddress()
    const browser = new Browser(service)
    await signUp(service, browser, address, GOOD)
    await new Promise((resolve) => setTimeout(resolve, 1500))
    expect((await change(service, browser, { newPassword: NEW })).status).toBe(400)
    expect(
      (await change(service, browser, { newPassword: NEW, currentPassword: 'not my password at all' })).status,
    ).toBe(400)
    const res = await change(service, browser, { newPassword: NEW, currentPassword: GOOD })
    expect(res.status).toBe(302)
    expect((await passwordSignIn(service, new Browser(service), address, NEW)).status).toBe(200)
  })

  it('refuses a new password that breaks a rule, and keeps the old one', async () => {
    const service = await startPasswordService()
    const address = newAddress()
    const browser = new Browser(service)
    await signUp(service, browser, address, GOOD)
    const res = await change(service, browser, { newPassword: `${address}-and-more`, currentPassword: GOOD })
    expect(res.status).toBe(400)
    expect((await passwordSignIn(service, new Browser(service), address, GOOD)).status).toBe(200)
  })

  it('a user signed in by e-mail link adds a password: a new way in for the same user', async () => {
    const service = await startPasswordService()
    const address = newAddress()
    const browser = new Browser(service)
    await requestLink(service, browser, address)
    const link = signInLink(await service.smtp.nextMessage(), service.base)
    await confirm(service, browser, confirmForm(await openLink(service, browser, link)).fields)
    expect(await sessionUser(service, browser)).toMatchObject({ email: address })
    const page = await browser.jar.fetch(`${service.base}/password/change`)
    expect(page.status).toBe(200)
    const res = await change(service, browser, { newPassword: NEW })
    expect(res.headers.get('location')).toMatch(`${service.base}/password/done?kind=added`)
    expect(service.events.map(({ name }) => name)).toEqual(['userCreated', 'accountLinked', 'passwordChanged'])
    const other = new Browser(service)
    expect((await passwordSignIn(service, other, address, NEW)).status).toBe(200)
    expect(await sessionUser(service, other)).toMatchObject({ email: address })
  })

  it('without a session: the sign-in page first', async () => {
    const service = await startPasswordService()
    const res = await change(service, new Browser(service), { newPassword: NEW })
    expect(res.status).toBe(302)
    expect(res.headers.get('location')).toMatch(`${service.base}/signin?`)
    expect(res.headers.get('location')).toMatch('error=SessionRequired')
  })
})
