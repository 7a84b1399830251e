import { email, password, redisAccounts } from '../../lib'
import { Browser } from '../support/browser'
import { serve } from '../support/app'
import { sharedRedisForFile } from '../support/redis'
import { startSmtp } from '../support/smtp'
import { FROM } from '../support/email-harness'
import {
  GOOD,
  formTo,
  later,
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
const file = sharedRedisForFile('password-reset')
const NEW = 'a brand new passphrase 2026'

async function forgot(service: { base: string }, browser: Browser, address: string): Promise<Response> {
  return submit(browser, service.base, '/password/forgot', {
    email: address,
    csrfToken: await browser.csrfToken(),
    callbackUrl: '/welcome',
  })
}

/** Opens the reset link in `browser` (from the webmail) and posts the form with `secret`. */
async function resetWith(service: { base: string }, browser: Browser, link: URL, secret: string): Promise<Response> {
  const page = await browser.jar.fetch(link, {}, { crossSite: true })
  expect(page.status).toBe(200)
  const form = formTo(await page.text(), service.base, '/password/reset')
  return submit(browser, service.base, '/password/reset', { ...form.fields, password: secret })
}

async function member(service: PasswordService): Promise<{ address: string; browser: Browser }> {
  const address = newAddress()
  const browser = new Browser(service)
  await signUp(service, browser, address, GOOD)
  return { address, browser }
}

describe('forgotten password', () => {
  it('answers the same whether or not the account exists; only the account’s owner gets a link', async () => {
    const service = await startPasswordService()
    const { address } = await member(service)
    const before = service.smtp.messages().length
    const a = await forgot(service, new Browser(service), address)
    const b = await forgot(service, new Browser(service), newAddress())
    for (const res of [a, b])
      expect({ status: res.status, location: res.headers.get('location') }).toEqual({
        status: 302,
        location: `${service.base}/password/sent?kind=reset`,
      })
    const mails = (await service.smtp.messagesAfter(300)).slice(before)
    expect(mails.map((mail) => mail.envelope.to)).toEqual([[address]])
    expect(linkIn(mails[0]!, service.base, '/password/reset').searchParams.get('email')).toBe(address)
  })

  it('the link shows a form and spends nothing; used from another browser it sets the password, ends every session, and works once', async () => {
    const service = await startPasswordService()
    const { address, browser: signedIn } = await member(service)
    expect(await sessionUser(service, signedIn)).not.toBeNull()
    await forgot(service, new Browser(service), address)
    const link = linkIn(await service.smtp.nextMessage(), service.base, '/password/reset')
    // Opened twice (a mail scanner first): still usable.
    expect((await new Browser(service).jar.fetch(link, {}, { crossSite: true })).status).toBe(200)
    const other = new Browser(service)
    const res = await resetWith(service, other, link, NEW)
    expect(res.status).toBe(302)
    expect(res.headers.get('location')).toMatch(`${service.base}/password/done?kind=reset`)
    expect(await sessionUser(service, signedIn)).toBeNull()
    expect(service.events.filter(({ name }) => name === 'passwordReset')).toHaveLength(1)
    expect((await passwordSignIn(service, new Browser(service), address, GOOD)).status).toBe(401)
    expect((await passwordSignIn(service, new Browser(service), address, NEW)).status).toBe(200)
    // Used twice: refused, and the password stays.
    const twice = await resetWith(service, new Browser(service), link, 'yet another passphrase 99')
    expect(twice.headers.get('location')).toBe(`${service.base}/error?error=Verification`)
    expect((await passwordSignIn(service, new Browser(service), address, NEW)).status).toBe(200)
  })

  it('refuses a weak new password on the form, saying why, and the link still works after', async () => {
    const service = await startPasswordService()
    const { address } = await member(service)
    await forgot(service, new Browser(service), address)
    const link = linkIn(await service.smtp.nextMessage(), service.base, '/password/reset')
    const browser = new Browser(service)
    const weak = await resetWith(service, browser, link, 'password')
    expect(weak.status).toBe(400)
    expect(await weak.text()).not.toContain('tooShort')
    expect((await resetWith(service, browser, link, NEW)).status).toBe(302)
  })

  it('a link asked for before the password last changed is void (attack finding F2)', async () => {
    const service = await startPasswordService()
    const { address } = await member(service)
    await forgot(service, new Browser(service), address)
    const first = linkIn(await service.smtp.nextMessage(), service.base, '/password/reset')
    await forgot(service, new Browser(service), address)
    const second = linkIn(await service.smtp.nextMessage(), service.base, '/password/reset')
    expect((await resetWith(service, new Browser(service), second, NEW)).status).toBe(302)
    const stale = await resetWith(service, new Browser(service), first, 'yet another passphrase 99')
    expect(stale.headers.get('location')).toBe(`${service.base}/error?error=Verification`)
    expect((await passwordSignIn(service, new Browser(service), address, NEW)).status).toBe(200)
  })

  it('an expired link is refused', async () => {
    const service = await startPasswordService()
    const { address } = await member(service)
    await forgot(service, new Browser(service), address)
    const link = linkIn(await service.smtp.nextMessage(), service.base, '/password/reset')
    const now = Date.now()
    const spy = jest.spyOn(Date, 'now').mockReturnValue(now + 3601 * 1000)
    try {
      const res = await resetWith(service, new Browser(service), link, NEW)
      expect(res.headers.get('location')).toBe(`${service.base}/error?error=Verification`)
    } finally {
      spy.mockRestore()
    }
    expect((await passwordSignIn(service, new Browser(service), address, GOOD)).status).toBe(200)
  })

  it('ends the user’s sessions on a second instance sharing Redis', async () => {
    const smtp = await startSmtp()
    later(() => smtp.close())
    const store = redisAccounts(file.client, { prefix: `${file.prefix}acc:` })
    const options = {
      redis: file.client,
      redisKeyPrefix: `${file.prefix}svc:`,
      accounts: store,
      requestRateLimit: { limit: 10_000 },
      providers: [
        email({ from: FROM, server: smtp.url, rateLimits: { addressPerMinute: 100 } }),
        password({ breached: false }),
      ],
    }
    const one = await serve({ ...options })
    later(() => one.close())
    const two = await serve({ ...options })
    later(() => two.close())
    const service = { ...one, smtp, store, events: [] } as unknown as PasswordService
    const address = newAddress()
    await signUp(service, new Browser(one), address, GOOD)
    const atTwo = new Browser(two)
    expect((await passwordSignIn(two, atTwo, address, GOOD)).status).toBe(200)
    expect(await sessionUser(two, atTwo)).toMatchObject({ email: address })
    await forgot(one, new Browser(one), address)
    const link = linkIn(await smtp.nextMessage(), one.base, '/password/reset')
    expect((await resetWith(one, new Browser(one), link, NEW)).status).toBe(302)
    expect(await sessionUser(two, atTwo)).toBeNull()
  })
})
