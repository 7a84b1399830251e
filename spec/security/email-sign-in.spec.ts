import type { SignInCallbackParams, SignInResult } from '../../lib'
import { restoreClock, setClock, useClock } from '../support/clock'
import {
  errorUrl,
  openLink,
  outcome,
  refused,
  requestLink,
  signedInTo,
  stopAll,
  verifyRequestUrl,
  withParams,
} from '../support/email-harness'
import { addressIn, confirmLink, linkFor, SIGNED_IN, startEmailApp } from '../support/email-setup'
import { captureOutput, expectNoLeaks } from '../support/leaks'

/**
 * No secret reaches a log in e-mail sign-in: the link asked for, opened, confirmed and signed in
 * with, then the session read, updated and ended; and every way it is refused (a link spent,
 * expired, tampered with or for another address, an address over its limit or not one mailbox, a
 * mail the server refuses, the app's signIn callback saying no, a POST without a valid CSRF token).
 * No log entry, and nothing written to stdout, stderr or the console, holds an address's local
 * part, a link or its token, a CSRF token, a cookie or the service secret.
 */

const logged = captureOutput()
afterEach(stopAll)
afterEach(restoreClock)

/** What this test logged, as `<level> <event>` (each service's start-up warning aside). */
const events = () =>
  logged
    .ofThisTest()
    .entries.filter((entry) => entry.event !== 'config.warning')
    .map((entry) => `${entry.level} ${entry.event}`)

describe('an e-mail sign-in that works, then its session', () => {
  it.each([true, false])('confirm: %s: logs none of the secrets it used', async (confirmPage) => {
    const app = await startEmailApp(logged, { confirm: confirmPage })
    const secrets = app.secrets()
    const browser = app.browser(secrets)
    const address = addressIn(secrets)
    const link = await linkFor(app, browser, secrets, address)
    const res = confirmPage
      ? await confirmLink(app, browser, secrets, link)
      : (await openLink(app.service, browser, link)).res
    expect(outcome(res)).toEqual(signedInTo(`${app.service.origin}/welcome`))

    expect(await browser.session()).toMatchObject({ user: { email: address } })
    const update = await browser.jar.fetch(`${app.service.base}/session`, {
      method: 'POST',
      body: new URLSearchParams({ csrfToken: await browser.csrfToken(), data: 'x' }),
    })
    expect(update.status).toBe(200)
    expect((await browser.signOut()).status).toBe(302)
    expect(await browser.session()).toEqual({})

    expect(events()).toEqual(expect.arrayContaining(['info email.sent', 'info session.created', 'info signout']))
    secrets.expectCollected(...SIGNED_IN)
    expectNoLeaks(logged.ofThisTest(), secrets)
  })
})

describe('an e-mail link refused', () => {
  it('spent, then tampered with, then for another address', async () => {
    const app = await startEmailApp(logged)
    const secrets = app.secrets()
    const browser = app.browser(secrets)
    const link = await linkFor(app, browser, secrets, addressIn(secrets))
    expect(outcome(await confirmLink(app, browser, secrets, link))).toMatchObject({ session: true })
    expect(outcome(await confirmLink(app, browser, secrets, link))).toEqual(refused(app.service))

    const other = await linkFor(app, browser, secrets, addressIn(secrets))
    const token = other.searchParams.get('token')!
    const tampered = withParams(other, { token: `${token.slice(0, -2)}${token.endsWith('AA') ? 'BB' : 'AA'}` })
    expect(outcome(await confirmLink(app, browser, secrets, tampered))).toEqual(refused(app.service))
    const elsewhere = withParams(other, { email: link.searchParams.get('email') })
    expect(outcome(await confirmLink(app, browser, secrets, elsewhere))).toEqual(refused(app.service))

    expect(events().filter((event) => event === 'warn email.verification_failed')).toHaveLength(3)
    secrets.expectCollected(...SIGNED_IN)
    expectNoLeaks(logged.ofThisTest(), secrets)
  })

  it('expired', async () => {
    const now = Math.floor(Date.now() / 1000)
    useClock(now)
    const app = await startEmailApp(logged, { maxAge: 60 })
    const secrets = app.secrets()
    const browser = app.browser(secrets)
    const link = await linkFor(app, browser, secrets, addressIn(secrets))
    setClock(now + 61)
    expect(outcome(await confirmLink(app, browser, secrets, link))).toEqual(refused(app.service))
    expect(events()).toContain('warn email.verification_failed')
    expectNoLeaks(logged.ofThisTest(), secrets)
  })
})

describe('no link sent', () => {
  it('over the address limit and the ip limit', async () => {
    const app = await startEmailApp(logged, { rateLimits: { addressPerMinute: 1, ipPerHour: 2 } })
    const secrets = app.secrets()
    const browser = app.browser(secrets)
    const address = addressIn(secrets)
    await linkFor(app, browser, secrets, address)
    const sentPage = { status: 302, location: verifyRequestUrl(app.service), session: false }
    expect(outcome(await requestLink(app.service, browser, address))).toEqual(sentPage)
    expect(outcome(await requestLink(app.service, browser, addressIn(secrets)))).toEqual(sentPage)
    expect(events()).toEqual(['info email.sent', 'warn email.rate_limited', 'warn email.rate_limited'])
    expect(app.service.smtp.messages()).toHaveLength(1)
    expectNoLeaks(logged.ofThisTest(), secrets)
  })

  it('an address that is not one mailbox, and a mailbox the mail server refuses', async () => {
    const app = await startEmailApp(logged, {}, {}, { refuse: (to) => to.startsWith('refused-') })
    const secrets = app.secrets()
    const browser = app.browser(secrets)
    const malformed = `${addressIn(secrets)},${addressIn(secrets, 'evil.example')}`
    expect(outcome(await requestLink(app.service, browser, malformed))).toEqual(refused(app.service, 'EmailSignin'))
    const refusedAddress = `refused-${addressIn(secrets)}`
    secrets.add('e-mail local part', refusedAddress.slice(0, refusedAddress.indexOf('@')))
    expect(outcome(await requestLink(app.service, browser, refusedAddress))).toEqual({
      status: 302,
      location: verifyRequestUrl(app.service),
      session: false,
    })
    expect(events()).toEqual(['info email.refused', 'warn email.refused'])
    expectNoLeaks(logged.ofThisTest(), secrets)
  })
})

describe("the app's signIn callback refusing an e-mail sign-in", () => {
  it.each([
    ['false', () => false],
    ['by throwing', () => Promise.reject(new Error('not on the guest list'))],
    ['with an answer it does not understand', () => ({ allow: 'yes' })],
  ])('%s, when the link is asked for and when it is used', async (_how, answer) => {
    // The callback is asked twice: for the link (`email.verificationRequest`), and when it is used.
    let refuseAt: 'request' | 'use' = 'request'
    const signIn = ({ email }: SignInCallbackParams) =>
      (refuseAt === 'request') === Boolean(email?.verificationRequest) ? (answer() as SignInResult) : true
    const app = await startEmailApp(logged, {}, { callbacks: { signIn } })
    const secrets = app.secrets()
    const browser = app.browser(secrets)
    const address = addressIn(secrets)
    expect(outcome(await requestLink(app.service, browser, address))).toEqual({
      status: 302,
      location: errorUrl(app.service, 'AccessDenied'),
      session: false,
    })
    refuseAt = 'use'
    const link = await linkFor(app, browser, secrets, address)
    expect(outcome(await confirmLink(app, browser, secrets, link))).toEqual(refused(app.service, 'AccessDenied'))
    secrets.expectCollected('e-mail token', 'sign-in link', 'e-mail local part', 'CSRF token')
    expectNoLeaks(logged.ofThisTest(), secrets)
  })
})

describe('e-mail POSTs without a valid CSRF token', () => {
  it('the link request and the confirm button with another browser’s token: nothing spent, nothing logged', async () => {
    const app = await startEmailApp(logged)
    const secrets = app.secrets()
    const browser = app.browser(secrets)
    const stolen = await app.browser(secrets).csrfToken()
    const address = addressIn(secrets)
    expect((await requestLink(app.service, browser, address, { csrfToken: stolen })).status).toBe(302)
    const link = await linkFor(app, browser, secrets, address)
    const back = await confirmLink(app, browser, secrets, link, { csrfToken: stolen })
    expect(back.headers.get('location')).toMatch(/\/callback\/email\?token=/)
    expect(outcome(await confirmLink(app, browser, secrets, link))).toMatchObject({ session: true })
    expect(events().filter((event) => event === 'warn csrf.invalid')).toHaveLength(2)
    secrets.expectCollected(...SIGNED_IN)
    expectNoLeaks(logged.ofThisTest(), secrets)
  })
})
