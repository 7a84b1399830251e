import { Browser } from '../support/browser'
import {
  GOOD,
  confirmLink,
  linkIn,
  newAddress,
  passwordSignIn,
  signUp,
  startPasswordService,
  stopAll,
  submit,
} from '../password/password-harness'

afterEach(stopAll)

/** Probes an outsider tries first against password(): none may crash, redirect off-site or open a session. */
describe('password(): what an outsider tries first', () => {
  it('arrays, objects and prototype keys in a JSON body, a 1 MB password, a 100k identifier: refused, never a 500', async () => {
    const service = await startPasswordService()
    const address = newAddress()
    await signUp(service, new Browser(service), address, GOOD)
    const browser = new Browser(service)
    const csrfToken = await browser.csrfToken()
    const bodies: unknown[] = [
      { csrfToken, email: [address], password: [GOOD], json: true },
      { csrfToken, email: { toString: address }, password: { length: 1 }, json: true },
      { csrfToken, __proto__: { email: address, password: GOOD }, json: true },
      { csrfToken, constructor: address, email: address, password: 'x'.repeat(1_000_000), json: true },
      { csrfToken, email: 'a'.repeat(100_000), password: GOOD, json: true },
    ]
    for (const body of bodies) {
      const res = await browser.jar.fetch(`${service.base}/callback/credentials`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
      expect([401, 413]).toContain(res.status)
    }
    for (const path of [
      '/password/signup',
      '/password/forgot',
      '/password/reset',
      '/password/change',
      '/password/confirm',
    ]) {
      const res = await browser.jar.fetch(`${service.base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ csrfToken, email: [address], password: { a: 1 }, token: ['x'], newPassword: [GOOD] }),
      })
      expect(res.status).toBeLessThan(500)
    }
  })

  it('a callbackUrl on another site never leaves the site through sign-up and confirm', async () => {
    const service = await startPasswordService()
    const browser = new Browser(service)
    const address = newAddress()
    await submit(browser, service.base, '/password/signup', {
      email: address,
      password: GOOD,
      csrfToken: await browser.csrfToken(),
      callbackUrl: 'https://evil.example/steal',
    })
    const res = await confirmLink(
      service,
      browser,
      linkIn(await service.smtp.nextMessage(), service.base, '/password/confirm'),
    )
    expect(new URL(res.headers.get('location')!).origin).toBe(service.origin)
    const done = await browser.jar.fetch(
      `${service.base}/password/done?kind=reset&callbackUrl=${encodeURIComponent('https://evil.example/')}`,
    )
    expect(await done.text()).not.toContain('evil.example')
  })

  it('a reset link with its address swapped for another user’s sets nothing', async () => {
    const service = await startPasswordService()
    const victim = newAddress()
    const attacker = newAddress()
    await signUp(service, new Browser(service), victim, GOOD)
    await signUp(service, new Browser(service), attacker, GOOD)
    const browser = new Browser(service)
    await submit(browser, service.base, '/password/forgot', { email: attacker, csrfToken: await browser.csrfToken() })
    const link = linkIn(await service.smtp.nextMessage(), service.base, '/password/reset')
    const swapped = await submit(browser, service.base, '/password/reset', {
      token: link.searchParams.get('token')!,
      email: victim,
      password: 'the attacker now owns this 77',
      csrfToken: await browser.csrfToken(),
    })
    expect(swapped.headers.get('location')).toBe(`${service.base}/error?error=Verification`)
    expect((await passwordSignIn(service, new Browser(service), victim, 'the attacker now owns this 77')).status).toBe(
      401,
    )
    expect((await passwordSignIn(service, new Browser(service), victim, GOOD)).status).toBe(200)
  })
})
