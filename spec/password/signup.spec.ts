import { Browser } from '../support/browser'
import { forms } from '../support/forms'
import { startRangeServer } from '../support/pwned-range'
import {
  GOOD,
  confirmLink,
  linkIn,
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

async function askSignUp(
  service: PasswordService,
  browser: Browser,
  address: string,
  secret: string,
): Promise<Response> {
  return submit(browser, service.base, '/password/signup', {
    email: address,
    password: secret,
    csrfToken: await browser.csrfToken(),
    callbackUrl: '/welcome',
  })
}

describe('password sign-up: the account exists only once its address is confirmed', () => {
  it('shows the form with the fields a password manager needs', async () => {
    const service = await startPasswordService()
    const res = await new Browser(service).jar.fetch(`${service.base}/password/signup`)
    expect(res.status).toBe(200)
    const html = await res.text()
    const form = forms(html).find((f) => f.action.endsWith('/password/signup'))!
    expect(Object.keys(form.fields)).toEqual(expect.arrayContaining(['email', 'password', 'csrfToken', 'callbackUrl']))
    expect(html).toMatch(/autocomplete="new-password"/)
  })

  it('creates nothing until the mailed link is confirmed; then the user is signed in, and the password signs in', async () => {
    const service = await startPasswordService()
    const address = newAddress()
    const browser = new Browser(service)
    const res = await askSignUp(service, browser, address, GOOD)
    expect({ status: res.status, location: res.headers.get('location') }).toEqual({
      status: 302,
      location: `${service.base}/password/sent?kind=signup`,
    })
    expect(await passwordSignIn(service, new Browser(service), address, GOOD)).toHaveProperty('status', 401)
    const mail = await service.smtp.nextMessage()
    const link = linkIn(mail, service.base, '/password/confirm')
    // Opening the link (a mail scanner does) spends nothing.
    await new Browser(service).jar.fetch(link, {}, { crossSite: true })
    const confirmed = await confirmLink(service, browser, link)
    expect({ status: confirmed.status, location: confirmed.headers.get('location') }).toEqual({
      status: 302,
      location: `${service.origin}/welcome`,
    })
    expect(await sessionUser(service, browser)).toMatchObject({ email: address })
    expect(service.events.map(({ name }) => name)).toEqual(['userCreated'])
    expect((await passwordSignIn(service, new Browser(service), address, GOOD)).status).toBe(200)
    // The link is spent.
    const again = await confirmLink(service, new Browser(service), link)
    expect(again.headers.get('location')).toBe(`${service.base}/error?error=Verification`)
  })

  it('gives whoever typed an address first nothing: the attacker’s password never signs in, the owner’s does', async () => {
    const service = await startPasswordService()
    const victim = newAddress()
    const attacker = new Browser(service)
    await askSignUp(service, attacker, victim, 'the attacker chose this one')
    const attackersLink = linkIn(await service.smtp.nextMessage(), service.base, '/password/confirm')
    // The victim signs up themselves, and confirms their own link.
    const owner = new Browser(service)
    expect((await signUp(service, owner, victim, GOOD)).status).toBe(302)
    // The attacker's link (in the victim's mailbox) creates nothing now, even with the attacker's password.
    const late = await confirmLink(service, new Browser(service), attackersLink, 'the attacker chose this one')
    expect(late.headers.get('location')).toMatch(`${service.base}/signin?`)
    expect((await passwordSignIn(service, new Browser(service), victim, 'the attacker chose this one')).status).toBe(
      401,
    )
    expect((await passwordSignIn(service, new Browser(service), victim, GOOD)).status).toBe(200)
    expect(service.events.filter(({ name }) => name === 'userCreated')).toHaveLength(1)
  })

  it('a sign-up link confirms only with the password chosen at sign-up: a victim pressing an attacker’s link creates nothing', async () => {
    const service = await startPasswordService()
    const victim = newAddress()
    await askSignUp(service, new Browser(service), victim, 'mallory-chose-this-passphrase-77')
    const link = linkIn(await service.smtp.nextMessage(), service.base, '/password/confirm')
    const pressed = await confirmLink(service, new Browser(service), link, 'what the victim types 2026')
    expect(pressed.status).toBe(401)
    expect(service.events).toEqual([])
    expect(
      (await passwordSignIn(service, new Browser(service), victim, 'mallory-chose-this-passphrase-77')).status,
    ).toBe(401)
    // Kept: whoever chose the password can still confirm (here, the attacker would need the mail).
    expect((await confirmLink(service, new Browser(service), link, 'mallory-chose-this-passphrase-77')).status).toBe(
      302,
    )
  })

  it('slows guessing of the chosen password with the link in hand, and keeps the link for its owner', async () => {
    const service = await startPasswordService()
    const address = newAddress()
    await askSignUp(service, new Browser(service), address, GOOD)
    const link = linkIn(await service.smtp.nextMessage(), service.base, '/password/confirm')
    for (let i = 0; i < 10; i++)
      expect((await confirmLink(service, new Browser(service), link, `guess number ${i} of many`)).status).toBe(401)
    // Slowed now: even the chosen password is refused unjudged, and the link is kept.
    expect((await confirmLink(service, new Browser(service), link, GOOD)).status).toBe(401)
    expect(service.events).toEqual([])
    await new Promise((resolve) => setTimeout(resolve, 1100))
    expect((await confirmLink(service, new Browser(service), link, GOOD)).status).toBe(302)
    expect((await passwordSignIn(service, new Browser(service), address, GOOD)).status).toBe(200)
  })

  it('answers an address that has an account exactly as a new one, and tells its owner by mail', async () => {
    const service = await startPasswordService()
    const taken = newAddress()
    await signUp(service, new Browser(service), taken, GOOD)
    const fresh = newAddress()
    const a = await askSignUp(service, new Browser(service), taken, 'another good long password')
    const b = await askSignUp(service, new Browser(service), fresh, 'another good long password')
    const shape = async (res: Response) => ({
      status: res.status,
      location: res.headers.get('location'),
      body: await res.text(),
    })
    expect(await shape(a)).toEqual(await shape(b))
    const mails = [await service.smtp.nextMessage(), await service.smtp.nextMessage()]
    const toOwner = mails.find((mail) => mail.envelope.to[0] === taken)!
    const toNew = mails.find((mail) => mail.envelope.to[0] === fresh)!
    expect(toOwner.text).not.toContain('/password/confirm')
    expect(toOwner.text).toContain(`${service.base}/signin`)
    expect(toNew.text).toContain(`${service.base}/password/confirm?`)
  })

  it('says which rule a password breaks, and mails nothing', async () => {
    const service = await startPasswordService()
    const address = newAddress()
    const res = await askSignUp(service, new Browser(service), address, 'short')
    expect(res.status).toBe(400)
    const html = await res.text()
    expect(html).not.toContain('tooShort')
    expect(html).toMatch(/15/)
    expect(await service.smtp.messagesAfter(200)).toEqual([])
  })

  it('refuses a password the breached-password range API knows (a local server speaking its protocol)', async () => {
    const leaked = 'a passphrase that leaked in 2019'
    const range = await startRangeServer({ breached: [leaked] })
    try {
      const service = await startPasswordService({ password: { breached: { url: range.url } } })
      const res = await askSignUp(service, new Browser(service), newAddress(), leaked)
      expect(res.status).toBe(400)
      expect(await res.text()).toMatch(/breach/i)
      expect((await askSignUp(service, new Browser(service), newAddress(), GOOD)).status).toBe(302)
      expect(range.requests.length).toBe(2)
    } finally {
      await range.stop()
    }
  })

  it('is not there when accounts.signUp is false', async () => {
    const service = await startPasswordService({ accounts: { signUp: false } })
    expect((await fetch(`${service.base}/password/signup`)).status).toBe(404)
  })
})
