import { Browser } from '../support/browser'
import { restoreClock, setClock, useClock } from '../support/clock'
import { GOOD, passwordSignIn } from '../password/password-harness'
import { codeOf, enrolledUser, newAddress, post, startMfaService, stopAll, type MfaService } from './mfa-harness'

/**
 * A second factor after the password (`mfa: { factors: [totp(), recoveryCodes()] }`): codes are
 * computed by the spec's own RFC 6238 (spec/support/totp.ts). The service's clock is the spec's
 * (Date faked, timers real), moved a step at a time.
 */

afterEach(stopAll)
afterEach(restoreClock)

let now = 0
/** Moves the clock on by `seconds`. */
function pass(seconds: number): void {
  now += seconds
  setClock(now)
}
beforeEach(() => {
  now = Math.floor(Date.now() / 1000)
  useClock(now)
})

/** Signs in with the password: the answer (JSON, as NextAuth's v4 client asks). */
async function firstFactor(service: MfaService, browser: Browser, address: string) {
  const res = await passwordSignIn(service, browser, address, GOOD)
  return { status: res.status, url: ((await res.json()) as { url: string }).url }
}

async function secondFactor(service: MfaService, browser: Browser, code: string, factor = 'totp') {
  return post(service, browser, '/mfa/verify', { factor, code, callbackUrl: '/welcome' }, true)
}

describe('a second factor after the password', () => {
  it('makes no session from the password alone: the browser goes to {base}/mfa, and the code makes the session', async () => {
    const service = await startMfaService()
    const address = newAddress()
    const enrolling = new Browser(service)
    const { key, uri, recoveryCodes } = await enrolledUser(service, enrolling, address)
    expect(uri.searchParams.get('issuer')).toBe('Example')
    expect(recoveryCodes).toHaveLength(10)
    expect(service.events.map(({ name }) => name)).toContain('factorAdded')

    pass(30)
    const browser = new Browser(service)
    const first = await firstFactor(service, browser, address)
    expect(first).toEqual({
      status: 200,
      url: `${service.base}/mfa?${new URLSearchParams({ callbackUrl: `${service.origin}/welcome` }).toString()}`,
    })
    expect(await browser.session()).toEqual({})
    const page = await browser.jar.fetch(first.url)
    expect(page.status).toBe(200)
    expect(await page.text()).toContain('name="code"')

    const second = await secondFactor(service, browser, codeOf(key, now * 1000))
    expect(await second.json()).toEqual({ url: `${service.origin}/welcome` })
    expect(await service.record(browser)).toMatchObject({ amr: ['pwd', 'otp', 'mfa'], aal: 2 })
  })

  it('refuses a code spent already (the one enrolment used), and an older one after a newer', async () => {
    const service = await startMfaService()
    const address = newAddress()
    const { key } = await enrolledUser(service, new Browser(service), address)
    const browser = new Browser(service)
    await firstFactor(service, browser, address)
    // The code of enrolment's step: spent.
    expect((await secondFactor(service, browser, codeOf(key, now * 1000))).status).toBe(401)
    // The next step's code (an app a little fast) works; then the current step's, older, does not.
    pass(30)
    expect((await secondFactor(service, browser, codeOf(key, (now + 30) * 1000))).status).toBe(200)
    const again = new Browser(service)
    await firstFactor(service, again, address)
    expect((await secondFactor(service, again, codeOf(key, now * 1000))).status).toBe(401)
    expect(await again.session()).toEqual({})
  })

  it('takes the code of the step before and after now, not two away', async () => {
    const service = await startMfaService()
    const address = newAddress()
    const { key } = await enrolledUser(service, new Browser(service), address)
    pass(300)
    const browser = new Browser(service)
    await firstFactor(service, browser, address)
    expect((await secondFactor(service, browser, codeOf(key, (now - 60) * 1000))).status).toBe(401)
    expect((await secondFactor(service, browser, codeOf(key, (now - 30) * 1000))).status).toBe(200)
    pass(300)
    const later = new Browser(service)
    await firstFactor(service, later, address)
    expect((await secondFactor(service, later, codeOf(key, (now + 60) * 1000))).status).toBe(401)
    expect((await secondFactor(service, later, codeOf(key, (now + 30) * 1000))).status).toBe(200)
  })

  it('takes a recovery code once', async () => {
    const service = await startMfaService()
    const address = newAddress()
    const { recoveryCodes } = await enrolledUser(service, new Browser(service), address)
    const [code] = recoveryCodes as [string]
    const browser = new Browser(service)
    await firstFactor(service, browser, address)
    expect((await secondFactor(service, browser, code.toUpperCase(), 'recovery')).status).toBe(200)
    expect(await service.record(browser)).toMatchObject({ aal: 2 })
    expect(service.events.find(({ name }) => name === 'recoveryCodeUsed')?.message).toMatchObject({ codesLeft: 9 })
    const again = new Browser(service)
    await firstFactor(service, again, address)
    expect((await secondFactor(service, again, code, 'recovery')).status).toBe(401)
  })

  it('ends the pending sign-in after five wrong codes: even the right one then makes nothing', async () => {
    const service = await startMfaService()
    const address = newAddress()
    const { key } = await enrolledUser(service, new Browser(service), address)
    pass(30)
    const browser = new Browser(service)
    await firstFactor(service, browser, address)
    const cookies = browser.jar.header(`${service.base}/mfa/verify`)
    for (let i = 0; i < 5; i++) expect((await secondFactor(service, browser, '000000')).status).toBe(401)
    expect((await secondFactor(service, browser, codeOf(key, now * 1000))).status).toBe(401)
    // Its cookie, copied before the five, is spent as well: counted on the server.
    const copy = new Browser(service)
    for (const pair of cookies!.split('; ')) copy.jar.set(`${service.base}/`, `${pair}; Path=/`)
    expect((await secondFactor(service, copy, codeOf(key, now * 1000))).status).toBe(401)
    expect(await browser.session()).toEqual({})
  })

  it('holds the pending sign-in in this browser only, for five minutes', async () => {
    const service = await startMfaService()
    const address = newAddress()
    const { key } = await enrolledUser(service, new Browser(service), address)
    pass(30)
    const browser = new Browser(service)
    await firstFactor(service, browser, address)
    const elsewhere = new Browser(service)
    const other = await secondFactor(service, elsewhere, codeOf(key, now * 1000))
    expect(other.status).toBe(401)
    expect(((await other.json()) as { url: string }).url).toContain('/signin?')
    pass(301)
    expect((await secondFactor(service, browser, codeOf(key, now * 1000))).status).toBe(401)
    expect(await browser.session()).toEqual({})
  })
})
