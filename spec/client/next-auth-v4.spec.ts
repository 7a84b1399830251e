import { newAddress, outcome, signedInTo, startEmailService, stopAll, verifyRequestUrl } from '../support/email-harness'
import { closePages, followMailedLink, openPage, signInByEmail } from '../support/client-harness'

/**
 * next-auth 4's own client (`next-auth/react`), unchanged, against the package over HTTP: a page's
 * calls (getCsrfToken, getProviders, getSession, signIn, signOut) in a browser whose cookies live in
 * a jar, and the e-mail sign-in in between (the link from a real mail server, its confirm page and
 * button). Results are asserted as the page sees them, which is what the wire contract promises.
 */

afterEach(async () => {
  closePages()
  await stopAll()
})

describe('the next-auth 4 client', () => {
  it('reads the CSRF token (the same while its cookie lasts), the providers, and no session', async () => {
    const service = await startEmailService()
    const { client } = await openPage(service, 'v4')

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

  it('signs in by e-mail: signIn sends the link, the link and its button sign in, getSession shows the user', async () => {
    const service = await startEmailService()
    const page = await openPage(service, 'v4')
    const address = newAddress()

    const result = await page.client.signIn('email', { email: address, redirect: false, callbackUrl: '/welcome' })
    expect(result).toEqual({ ok: true, error: null, status: 200, url: verifyRequestUrl(service) })
    // The mail alone signs nobody in: the link must be opened and confirmed.
    expect(await page.client.getSession()).toBeNull()

    expect(outcome(await followMailedLink(service, page, address))).toEqual(signedInTo(`${service.origin}/welcome`))
    const session = (await page.client.getSession()) as { expires: string }
    expect(session).toEqual({ user: { name: null, email: address, image: null }, expires: expect.any(String) })
    expect(Date.parse(session.expires)).toBeGreaterThan(Date.now())
  })

  it('signs out: signOut answers the callbackUrl, and getSession is null again', async () => {
    const service = await startEmailService()
    const page = await openPage(service, 'v4')
    await signInByEmail(service, page)
    expect(await page.client.getSession()).not.toBeNull()

    expect(await page.client.signOut({ redirect: false, callbackUrl: '/bye' })).toEqual({
      url: `${service.origin}/bye`,
    })
    expect(await page.client.getSession()).toBeNull()
    expect(page.browser.cookie('auth.session-token')).toBeUndefined()
  })

  it("reports a refusal by the app's signIn callback as AccessDenied, and no mail is sent", async () => {
    const blocked = newAddress('blocked.example')
    const service = await startEmailService({}, { callbacks: { signIn: ({ user }) => user.email !== blocked } })
    const { client } = await openPage(service, 'v4')

    // As NextAuth's own server does, a refusal in JSON mode is the error page's URL with a 200 (the
    // contract: 200 unless a route says otherwise): the client reports it in `error`.
    const result = await client.signIn('email', { email: blocked, redirect: false, callbackUrl: '/welcome' })
    expect(result).toEqual({ ok: true, error: 'AccessDenied', status: 200, url: null })
    expect(service.smtp.recipientsAsked()).toEqual([])
    expect(await client.getSession()).toBeNull()
  })

  it('reports an address that is not one plain mailbox as EmailSignin, and no mail is sent', async () => {
    const service = await startEmailService()
    const { client } = await openPage(service, 'v4')

    const result = await client.signIn('email', {
      email: 'victim@example.com,attacker@example.net',
      redirect: false,
      callbackUrl: '/welcome',
    })
    expect(result).toEqual({ ok: true, error: 'EmailSignin', status: 200, url: null })
    expect(service.smtp.recipientsAsked()).toEqual([])
  })

  it('reports MissingCSRF (403) when the browser lost the CSRF cookie before the POST, and sends nothing', async () => {
    const service = await startEmailService()
    const page = await openPage(service, 'v4')
    page.losesCsrfCookie()

    const result = await page.client.signIn('email', { email: newAddress(), redirect: false, callbackUrl: '/welcome' })
    expect(result).toEqual({ ok: false, error: 'MissingCSRF', status: 403, url: null })
    expect(service.smtp.recipientsAsked()).toEqual([])
  })

  it('signs nobody out when the browser lost the CSRF cookie: signOut answers MissingCSRF, the session stays', async () => {
    const service = await startEmailService()
    const page = await openPage(service, 'v4')
    const address = await signInByEmail(service, page)
    page.losesCsrfCookie()

    expect(await page.client.signOut({ redirect: false, callbackUrl: '/bye' })).toEqual({
      url: `${service.base}/signout?csrf=true&error=MissingCSRF`,
    })
    expect(await page.client.getSession()).toMatchObject({ user: { email: address } })
  })
})
