import { restoreClock, useClock } from '../support/clock'
import { Browser } from '../support/browser'
import { signInLink } from '../support/smtp'
import { confirm, confirmForm, openLink, requestLink } from '../support/email-harness'
import {
  GOOD,
  bcryptHash,
  importedAccount,
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
} from '../password/password-harness'

afterEach(stopAll)
afterEach(restoreClock)

// An outsider's second round against password(): each test asserts the safe behaviour, so a failing
// test is a finding. The attacker has no mailbox but their own, and (where said) a stolen session.

const NEW = 'a brand new passphrase 2026'
const WRONG = (i: number) => `attacker guess number ${i} xx`

let ip = 0
/** A fresh client address, behind `trust proxy`: the attacker's botnet, or the owner's other network. */
function nextClient(): Record<string, string> {
  ip++
  return { 'x-forwarded-for': `10.${(ip >> 16) & 255}.${(ip >> 8) & 255}.${ip & 255}` }
}

/** `count` wrong sign-ins for `address`, each from its own client: the account's count, never a client's. */
async function failMany(service: PasswordService, address: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const browser = new Browser(service)
    const body = new URLSearchParams({
      email: address,
      password: WRONG(i),
      csrfToken: await browser.csrfToken(),
      json: 'true',
    })
    const res = await browser.jar.fetch(`${service.base}/callback/credentials`, {
      method: 'POST',
      body,
      headers: nextClient(),
    })
    expect(res.status).toBe(401)
  }
}

async function changeForm(service: PasswordService, browser: Browser, fields: Record<string, string>) {
  return submit(browser, service.base, '/password/change', {
    csrfToken: await browser.csrfToken(),
    callbackUrl: '/welcome',
    ...fields,
  })
}

const proxied = { setup: (app: import('express').Express) => app.set('trust proxy', true) }

describe('locking a real owner out', () => {
  it('an attacker keeping the account slowed cannot stop its owner, on their known device, from changing the password', async () => {
    const service = await startPasswordService({ ...proxied, password: { throttle: { maxDelay: 300 } } })
    const address = newAddress()
    const owner = new Browser(service)
    await signUp(service, owner, address, GOOD)
    // Signed in with the password: this browser is a known device of the account.
    expect((await passwordSignIn(service, owner, address, GOOD)).status).toBe(200)
    await failMany(service, address, 12)
    // Already signed in on their known device (where a sign-in would still work, on its own count), the
    // owner changes the password: the form asks for the same password on the same device.
    const res = await changeForm(service, owner, { currentPassword: GOOD, newPassword: NEW })
    expect(res.status).toBe(302)
    expect(res.headers.get('location')).toMatch(`${service.base}/password/done?kind=changed`)
  })

  it('failed sign-ins for a new address do not stop its owner from confirming their sign-up link', async () => {
    const service = await startPasswordService({ ...proxied, password: { throttle: { maxDelay: 300 } } })
    const address = newAddress()
    const owner = new Browser(service)
    await submit(owner, service.base, '/password/signup', {
      email: address,
      password: GOOD,
      csrfToken: await owner.csrfToken(),
      callbackUrl: '/welcome',
    })
    const link = linkIn(await service.smtp.nextMessage(), service.base, '/password/confirm')
    // The attacker saw the owner sign up (or sprays addresses in advance): the address has no account,
    // but its count fills all the same.
    await failMany(service, address, 12)
    const res = await confirmLink(service, owner, link, GOOD)
    expect(res.status).toBe(302)
    expect(await sessionUser(service, owner)).toMatchObject({ email: address })
  })

  it('after a reset, the browser that reset signs in with the new password even while an attacker keeps failing', async () => {
    const service = await startPasswordService({ ...proxied, password: { throttle: { maxDelay: 300 } } })
    const address = newAddress()
    await signUp(service, new Browser(service), address, GOOD)
    await failMany(service, address, 12)
    // The owner, locked out on a new browser, resets by mail as the docs tell them to.
    const owner = new Browser(service)
    await submit(owner, service.base, '/password/forgot', { email: address, csrfToken: await owner.csrfToken() })
    const link = linkIn(await service.smtp.nextMessage(), service.base, '/password/reset')
    const reset = await submit(owner, service.base, '/password/reset', {
      token: link.searchParams.get('token')!,
      email: address,
      password: NEW,
      csrfToken: await owner.csrfToken(),
    })
    expect(reset.headers.get('location')).toMatch(`${service.base}/password/done?kind=reset`)
    // The attacker goes on: the count that the reset started again fills in a second.
    await failMany(service, address, 12)
    const res = await passwordSignIn(service, owner, address, NEW)
    expect(res.status).toBe(200)
  })
})

describe('the refusal floor', () => {
  // bcryptjs reads 72 bytes at most, so the verifier refuses a longer password without any work. Such
  // an instant "verification" of an imported hash must not be taken as the time one takes.
  it('passwords over 72 bytes against imported bcrypt accounts cannot drag the floor down to tell unknown addresses apart', async () => {
    const service = await startPasswordService(proxied)
    const imported = await bcryptHash(GOOD, 10)
    const addresses: string[] = []
    for (let i = 0; i < 11; i++) {
      const address = newAddress()
      await importedAccount(service.store, address, imported)
      addresses.push(address)
    }
    const attempt = async (address: string, secret: string) => {
      const browser = new Browser(service)
      const body = new URLSearchParams({
        email: address,
        password: secret,
        csrfToken: await browser.csrfToken(),
        json: 'true',
      })
      const started = performance.now()
      const res = await browser.jar.fetch(`${service.base}/callback/credentials`, {
        method: 'POST',
        body,
        headers: nextClient(),
      })
      expect(res.status).toBe(401)
      return performance.now() - started
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
    // Real users mistype their imported passwords: the floor learns bcrypt's time.
    for (let i = 0; i < 8; i++) await attempt(addresses[0]!, `mistyped password ${i}`)
    const before: number[] = []
    for (let i = 0; i < 9; i++) before.push(await attempt(newAddress(), 'not the right password'))
    // The attacker: 40 long passwords over five imported accounts (8 each, within the free failures).
    const long = 'a-long-passphrase-of-eighty-bytes-'.repeat(3)
    for (let i = 0; i < 40; i++) await attempt(addresses[1 + (i % 5)]!, `${long}${i}`)
    const after: number[] = []
    const importedTimes: number[] = []
    for (let i = 0; i < 5; i++) {
      after.push(await attempt(newAddress(), 'not the right password'))
      importedTimes.push(await attempt(addresses[6 + i]!, 'not the right password'))
    }
    // An unknown address still answers as late as before, and as late as an imported account does.
    const medians = { before: median(before), after: median(after), imported: median(importedTimes) }
    expect({ ...medians, tellsApart: medians.after < 0.6 * medians.imported }).toEqual({
      ...medians,
      tellsApart: false,
    })
    expect(median(after)).toBeGreaterThan(0.6 * median(importedTimes))
  }, 60_000)
})

describe('the current password', () => {
  it('a stolen recent session cookie cannot replace the password without the current one by unlinking it first', async () => {
    const service = await startPasswordService()
    const address = newAddress()
    const owner = new Browser(service)
    // A user who signed in by e-mail link and then added a password: two ways in.
    await requestLink(service, owner, address)
    const link = signInLink(await service.smtp.nextMessage(), service.base)
    await confirm(service, owner, confirmForm(await openLink(service, owner, link)).fields)
    const added = await changeForm(service, owner, { newPassword: GOOD })
    expect(added.headers.get('location')).toMatch(`${service.base}/password/done?kind=added`)
    // The attacker holds a copy of this (recent) session cookie.
    const thief = new Browser(service, owner.jar)
    const account = await service.store.findAccount({ provider: 'credentials', issuer: '', subject: address })
    await thief.jar.fetch(`${service.base}/unlink`, {
      method: 'POST',
      body: new URLSearchParams({
        csrfToken: await thief.csrfToken(),
        callbackUrl: '/account',
        accountId: account!.id,
      }),
    })
    const res = await changeForm(service, thief, { newPassword: 'the thief chose this one 99' })
    expect(res.headers.get('location') ?? '').not.toMatch('/password/done')
    expect((await passwordSignIn(service, new Browser(service), address, 'the thief chose this one 99')).status).toBe(
      401,
    )
  })
})

describe('hashing work', () => {
  it('a reset post with a made-up token does no hashing (no 429 from a flood of them)', async () => {
    const service = await startPasswordService({ password: { hashing: { concurrency: 1, queue: 0, wait: 100 } } })
    const address = newAddress()
    await signUp(service, new Browser(service), address, GOOD)
    const browser = new Browser(service)
    const csrfToken = await browser.csrfToken()
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        submit(browser, service.base, '/password/reset', {
          token: `made-up-token-${i}`,
          email: address,
          password: `${NEW} ${i}`,
          csrfToken,
        }),
      ),
    )
    const statuses = answers.map((res) => res.status)
    expect(statuses.filter((status) => status === 429)).toEqual([])
    for (const res of answers) expect(res.headers.get('location')).toBe(`${service.base}/error?error=Verification`)
  })
})

describe('what held, kept as checks', () => {
  it('X-Forwarded-For and IPv6 rotation get no guess past the free failures; another account’s device cookie is no device here', async () => {
    const service = await startPasswordService({ ...proxied, password: { throttle: { maxDelay: 300 } } })
    const victim = newAddress()
    const attacker = newAddress()
    await signUp(service, new Browser(service), victim, GOOD)
    const mine = new Browser(service)
    await signUp(service, mine, attacker, GOOD)
    expect((await passwordSignIn(service, mine, attacker, GOOD)).status).toBe(200)
    // Time stands still from here: the delay the burst earns cannot run out on a slow machine.
    useClock(Math.floor(Date.now() / 1000))
    // A burst of 20 at once from 20 IPv6 /64s: at most the free failures are judged.
    const burst = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const browser = new Browser(service)
        const body = new URLSearchParams({
          email: victim,
          password: WRONG(i),
          csrfToken: await browser.csrfToken(),
          json: 'true',
        })
        return browser.jar.fetch(`${service.base}/callback/credentials`, {
          method: 'POST',
          body,
          headers: { 'x-forwarded-for': `2001:db8:${i.toString(16)}::1` },
        })
      }),
    )
    // Refused, or 429 past the hashing gate's queue: never a session.
    for (const res of burst) expect([401, 429]).toContain(res.status)
    // The right password now: from a fresh IPv6 and a fresh IPv4, from the attacker's own known device.
    for (const headers of [{ 'x-forwarded-for': '2001:db8:ffff::7' }, { 'x-forwarded-for': '198.51.100.9' }]) {
      const browser = new Browser(service)
      const body = new URLSearchParams({
        email: victim,
        password: GOOD,
        csrfToken: await browser.csrfToken(),
        json: 'true',
      })
      const res = await browser.jar.fetch(`${service.base}/callback/credentials`, { method: 'POST', body, headers })
      expect(res.status).toBe(401)
    }
    expect((await passwordSignIn(service, mine, victim, GOOD)).status).toBe(401)
    expect(await sessionUser(service, mine)).toMatchObject({ email: attacker })
  })

  it('hostile form and query shapes on every password route: never a 5xx', async () => {
    const service = await startPasswordService()
    const address = newAddress()
    await signUp(service, new Browser(service), address, GOOD)
    const browser = new Browser(service)
    const csrfToken = await browser.csrfToken()
    const raw = (extra: string) => `csrfToken=${encodeURIComponent(csrfToken)}&${extra}`
    const bodies = [
      '__proto__[email]=x@example.com&__proto__[password]=x&email=__proto__&password=constructor',
      `email[]=${encodeURIComponent(address)}&password[]=x&token[]=a&newPassword[toString]=1`,
      `email=${encodeURIComponent(address)}&email=${encodeURIComponent(address)}&password=${encodeURIComponent(GOOD)}&password=x`,
      `email=%F0%9F%98%80%40%F0%9F%98%80.example&password=%ED%A0%80${'%E2%80%8B'.repeat(500)}&token=%00&name=%ED%A0%80`,
      `email=${encodeURIComponent(`${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.example`)}&password=${'%EF%BC%A1'.repeat(512)}`,
      `constructor[prototype][polluted]=1&hasOwnProperty=1&toString=1&valueOf=1&json=true`,
    ]
    const paths = [
      '/callback/credentials',
      '/password/signup',
      '/password/forgot',
      '/password/reset',
      '/password/change',
      '/password/confirm',
    ]
    for (const path of paths)
      for (const body of bodies) {
        const res = await browser.jar.fetch(`${service.base}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: raw(body),
        })
        expect({ path, body, status: res.status }).toEqual({ path, body, status: expect.any(Number) })
        expect(res.status).toBeLessThan(500)
      }
    for (const query of [
      '?token=a&token=b&email=x%40example.com',
      '?token=__proto__&email=__proto__',
      `?token=${'t'.repeat(5000)}&email=${encodeURIComponent(address)}`,
      '?email[]=a&token[x]=1',
      '?token=%ED%A0%80&email=%ED%A0%80%40example.com',
    ])
      for (const path of [
        '/password/confirm',
        '/password/reset',
        '/password/forgot',
        '/password/done',
        '/password/sent',
      ])
        expect((await browser.jar.fetch(`${service.base}${path}${query}`)).status).toBeLessThan(500)
    // A forged known-device cookie and a garbage one: refused alike, no 5xx.
    for (const value of ['x', 'a.b.c.d.e', 'e30.'.repeat(2000).slice(0, 3000)]) {
      const jar = new Browser(service)
      const token = await jar.csrfToken()
      jar.jar.set(service.base, `auth.known-device=${value}; Path=/`)
      const res = await jar.jar.fetch(`${service.base}/callback/credentials`, {
        method: 'POST',
        body: new URLSearchParams({
          email: address,
          password: 'wrong one for this test',
          csrfToken: token,
          json: 'true',
        }),
      })
      expect(res.status).toBeLessThan(500)
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect((await passwordSignIn(service, new Browser(service), address, GOOD)).status).toBe(200)
  })

  it('a sign-up link for one address creates nothing for another; a reset link dies with a password change', async () => {
    const service = await startPasswordService()
    const victim = newAddress()
    const attacker = newAddress()
    const browser = new Browser(service)
    await submit(browser, service.base, '/password/signup', {
      email: attacker,
      password: GOOD,
      csrfToken: await browser.csrfToken(),
    })
    const link = linkIn(await service.smtp.nextMessage(), service.base, '/password/confirm')
    const swapped = new URL(link)
    swapped.searchParams.set('email', victim)
    const page = await browser.jar.fetch(swapped, {}, { crossSite: true })
    const html = await page.text()
    if (page.status === 200) {
      const res = await submit(browser, service.base, '/password/confirm', {
        token: link.searchParams.get('token')!,
        email: victim,
        password: GOOD,
        csrfToken: await browser.csrfToken(),
      })
      expect(res.headers.get('location')).toBe(`${service.base}/error?error=Verification`)
    } else expect(html).not.toContain('password')
    expect(await service.store.findAccount({ provider: 'credentials', issuer: '', subject: victim })).toBeNull()
    // The link still works for its own address.
    expect((await confirmLink(service, browser, link, GOOD)).status).toBe(302)
    // A reset link asked for before a change is void after it.
    await submit(browser, service.base, '/password/forgot', { email: attacker, csrfToken: await browser.csrfToken() })
    const reset = linkIn(await service.smtp.nextMessage(), service.base, '/password/reset')
    expect(
      (await changeForm(service, browser, { currentPassword: GOOD, newPassword: NEW })).headers.get('location'),
    ).toMatch('/password/done?kind=changed')
    const res = await submit(browser, service.base, '/password/reset', {
      token: reset.searchParams.get('token')!,
      email: attacker,
      password: 'another brand new one 2027',
      csrfToken: await browser.csrfToken(),
    })
    expect(res.headers.get('location')).toBe(`${service.base}/error?error=Verification`)
    expect((await passwordSignIn(service, new Browser(service), attacker, NEW)).status).toBe(200)
  })
})
