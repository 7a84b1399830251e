import type { AuthOptions } from '../../lib'
import { loadV4Client } from '../support/next-auth-client'
import { newAddress, outcome, signedInTo, startEmailService, stopAll, verifyRequestUrl } from '../support/email-harness'
import { closePages, followMailedLink, openPage, signInByEmail } from '../support/client-harness'

/**
 * next-auth 5's own client (`next-auth/react` of 5.0.0-beta, bundled to CommonJS at spec time),
 * unchanged, against the package with `nextAuthClient: 'v5'`: it asks for JSON with the
 * `X-Auth-Return-Redirect: 1` header instead of `json=true`, and takes any JSON object from
 * GET /session for a session, so the option is what keeps a signed-out user signed out. The
 * contrast without the option is asserted too: it is the reason the option exists.
 */

const V5: AuthOptions = { nextAuthClient: 'v5' }

afterEach(async () => {
  closePages()
  await stopAll()
})

describe("the next-auth 5 client, with nextAuthClient: 'v5'", () => {
  it('reads the CSRF token, the providers, and no session (null)', async () => {
    const service = await startEmailService({}, V5)
    const { client } = await openPage(service, 'v5')

    const token = await client.getCsrfToken()
    expect(token).toMatch(/^[\w-]{32,}$/)
    expect(await client.getCsrfToken()).toBe(token)
    expect(await client.getProviders()).toEqual({
      email: {
        id: 'email',
        name: 'Email',
        type: 'email',
        signinUrl: `${service.base}/signin/email`,
        callbackUrl: `${service.base}/callback/email`,
      },
    })
    expect(await client.getSession()).toBeNull()
  })

  it('signs in by e-mail: signIn (X-Auth-Return-Redirect) sends the link, the link signs in, getSession shows the user', async () => {
    const service = await startEmailService({}, V5)
    const page = await openPage(service, 'v5')
    const address = newAddress()

    const result = await page.client.signIn('email', { email: address, redirect: false, redirectTo: '/welcome' })
    expect(result).toEqual({ ok: true, error: undefined, code: undefined, status: 200, url: verifyRequestUrl(service) })
    // The JSON answer came from the header alone: the v5 client sends no `json` field.
    const post = page.requests.find((request) => request.method === 'POST')
    expect(post?.headers.get('x-auth-return-redirect')).toBe('1')
    expect(Object.fromEntries(new URLSearchParams(post?.body))).toEqual({
      email: address,
      csrfToken: expect.any(String),
      callbackUrl: '/welcome',
    })
    expect(await page.client.getSession()).toBeNull()

    expect(outcome(await followMailedLink(service, page, address))).toEqual(signedInTo(`${service.origin}/welcome`))
    const session = (await page.client.getSession()) as { expires: string }
    expect(session).toEqual({ user: { name: null, email: address, image: null }, expires: expect.any(String) })
    expect(Date.parse(session.expires)).toBeGreaterThan(Date.now())
  })

  it('signs out: signOut answers the redirectTo URL, and getSession is null again', async () => {
    const service = await startEmailService({}, V5)
    const page = await openPage(service, 'v5')
    await signInByEmail(service, page)
    expect(await page.client.getSession()).not.toBeNull()

    expect(await page.client.signOut({ redirect: false, redirectTo: '/bye' })).toEqual({
      url: `${service.origin}/bye`,
    })
    expect(await page.client.getSession()).toBeNull()
    expect(page.browser.cookie('auth.session-token')).toBeUndefined()
  })

  it('sees no session (null) when the session cookie does not open', async () => {
    const service = await startEmailService({}, V5)
    const page = await openPage(service, 'v5')
    await signInByEmail(service, page)
    expect(await page.client.getSession()).not.toBeNull()
    const cookie = page.browser.cookie('auth.session-token')!
    // One character in the middle of the sealed cookie changed (a last character can differ in
    // padding bits only, and decode to the same bytes).
    const at = Math.floor(cookie.value.length / 2)
    const changed = cookie.value.slice(0, at) + (cookie.value[at] === 'A' ? 'B' : 'A') + cookie.value.slice(at + 1)
    page.browser.jar.set(service.origin, `${cookie.name}=${changed}; Path=/`)

    expect(await page.client.getSession()).toBeNull()
    expect(page.browser.cookie('auth.session-token')).toBeUndefined()
  })

  it("reports a refusal by the app's signIn callback as AccessDenied, and no mail is sent", async () => {
    const blocked = newAddress('blocked.example')
    const service = await startEmailService({}, { ...V5, callbacks: { signIn: ({ user }) => user.email !== blocked } })
    const { client } = await openPage(service, 'v5')

    const result = await client.signIn('email', { email: blocked, redirect: false, redirectTo: '/welcome' })
    expect(result).toEqual({ ok: true, error: 'AccessDenied', code: undefined, status: 200, url: null })
    expect(service.smtp.recipientsAsked()).toEqual([])
  })

  it('reports MissingCSRF (403) when the browser lost the CSRF cookie before the POST, and sends nothing', async () => {
    const service = await startEmailService({}, V5)
    const page = await openPage(service, 'v5')
    page.losesCsrfCookie()

    const result = await page.client.signIn('email', { email: newAddress(), redirect: false, redirectTo: '/welcome' })
    expect(result).toEqual({ ok: false, error: 'MissingCSRF', code: undefined, status: 403, url: null })
    expect(service.smtp.recipientsAsked()).toEqual([])
  })

  it('signs nobody out when the browser lost the CSRF cookie: signOut answers MissingCSRF, the session stays', async () => {
    const service = await startEmailService({}, V5)
    const page = await openPage(service, 'v5')
    const address = await signInByEmail(service, page)
    page.losesCsrfCookie()

    expect(await page.client.signOut({ redirect: false, redirectTo: '/bye' })).toEqual({
      url: `${service.base}/signout?csrf=true&error=MissingCSRF`,
    })
    expect(await page.client.getSession()).toMatchObject({ user: { email: address } })
  })
})

describe('the next-auth 5 client without the option', () => {
  it('takes the signed-out answer {} for a session, where the v4 client sees none: why the option exists', async () => {
    const service = await startEmailService()
    const { client } = await openPage(service, 'v5')

    expect(await client.getSession()).toEqual({})
    expect(await loadV4Client(service.base).getSession()).toBeNull()
  })
})
