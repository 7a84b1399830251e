import request from 'supertest'
import { email, oauth2 } from '../../lib'
import { makeApp } from '../support/app'
import { findCookie } from '../support/cookies'
import { csrfPair } from '../support/csrf'
import { clockAt } from '../support/clock'
import { VALID_AT, VECTORS, sessionCookie } from '../support/sessions'

// The origin check behind the CSRF token: a POST that a browser says came from another site is
// refused even when it carries a valid token and cookie (a token leaked to that site, say). The
// signed-in session is the witness: a refused sign-out leaves it alive.
describe('POSTs from another site', () => {
  clockAt(VALID_AT)
  const EVIL = 'https://evil.example'
  const TRUSTED = 'https://app.example.com'

  async function signOutWith(headers: Record<string, string>, json = false) {
    const { app, logs } = makeApp({ trustedOrigins: [TRUSTED] })
    const { token, cookie } = await csrfPair(app)
    const res = await request(app)
      .post('/api/auth/signout')
      .set('Cookie', `${cookie}; ${sessionCookie(VECTORS.ada)}`)
      .set(headers)
      .type('form')
      .send({ csrfToken: token, ...(json ? { json: 'true' } : {}) })
    return { res, logs, signedOut: findCookie(res, 'auth.session-token')?.value === '' }
  }

  it.each([
    ['Sec-Fetch-Site: cross-site from an untrusted origin', { 'Sec-Fetch-Site': 'cross-site', Origin: EVIL }],
    ['Sec-Fetch-Site: cross-site with Origin: null', { 'Sec-Fetch-Site': 'cross-site', Origin: 'null' }],
    ['Sec-Fetch-Site: cross-site with no Origin', { 'Sec-Fetch-Site': 'cross-site' }],
    ['no Sec-Fetch-Site, an untrusted Origin', { Origin: EVIL }],
    ['no Sec-Fetch-Site, an Origin that only starts like ours', { Origin: 'http://localhost:3000.evil.example' }],
  ])('refuses %s, as a failed CSRF check: back to the page, still signed in', async (_name, headers) => {
    const { res, logs, signedOut } = await signOutWith(headers)
    expect(res.status).toBe(302)
    expect(res.headers.location).toBe('http://localhost:3000/api/auth/signout?csrf=true')
    expect(signedOut).toBe(false)
    expect(logs).toContainEqual(
      expect.objectContaining({ level: 'warn', event: 'request.cross_site', route: 'signout' }),
    )
  })

  it('answers the NextAuth client (JSON mode) with 403 and error=MissingCSRF', async () => {
    const { res, signedOut } = await signOutWith({ 'Sec-Fetch-Site': 'cross-site', Origin: EVIL }, true)
    expect(res.status).toBe(403)
    expect(new URL(res.body.url as string).searchParams.get('error')).toBe('MissingCSRF')
    expect(signedOut).toBe(false)
  })

  it.each([
    ['same-origin', { 'Sec-Fetch-Site': 'same-origin', Origin: 'http://localhost:3000' }],
    ['cross-site from a trusted origin', { 'Sec-Fetch-Site': 'cross-site', Origin: TRUSTED }],
    ['same-site (a sibling host: the token decides)', { 'Sec-Fetch-Site': 'same-site', Origin: 'http://a.localhost' }],
    ['no Sec-Fetch-Site, our own Origin', { Origin: 'http://localhost:3000' }],
    ['no Sec-Fetch-Site, a trusted Origin', { Origin: TRUSTED }],
    ['no Sec-Fetch-Site, Origin: null (a privacy setting)', { Origin: 'null' }],
    ['neither header (a server, curl, the NextAuth client in Node)', {}],
  ])('lets through %s', async (_name, headers) => {
    const { res, signedOut } = await signOutWith(headers)
    expect(res.status).toBe(302)
    expect(res.headers.location).toBe('http://localhost:3000/')
    expect(signedOut).toBe(true)
  })

  it('refuses a cross-site session update (400 {}) and a cross-site client log (403)', async () => {
    const { app, logs } = makeApp()
    const { token, cookie } = await csrfPair(app)
    const session = sessionCookie(VECTORS.ada)
    const update = await request(app)
      .post('/api/auth/session')
      .set('Cookie', `${cookie}; ${session}`)
      .set({ 'Sec-Fetch-Site': 'cross-site', Origin: EVIL })
      .send({ csrfToken: token, data: { name: 'Mallory' } })
    expect({ status: update.status, body: update.body }).toEqual({ status: 400, body: {} })
    const beacon = await request(app)
      .post('/api/auth/_log')
      .set({ 'Sec-Fetch-Site': 'cross-site', Origin: EVIL })
      .type('form')
      .send({ level: 'error', code: 'X', message: 'forged' })
    expect(beacon.status).toBe(403)
    expect(logs.filter((entry) => entry.event === 'client.log')).toEqual([])
  })

  it('refuses a cross-site POST of an e-mail link, and lets an OAuth provider post its answer', async () => {
    const { app, logs } = makeApp({
      providers: [
        email({ from: 'a@example.com', sendVerificationRequest: async () => undefined }),
        oauth2({
          id: 'acme',
          clientId: 'app',
          clientSecret: 'secret',
          authorizationUrl: 'https://idp.example.com/authorize',
          tokenUrl: 'https://idp.example.com/token',
        }),
      ],
    })
    const { token, cookie } = await csrfPair(app)
    const crossSite = { 'Sec-Fetch-Site': 'cross-site', Origin: EVIL }
    const link = await request(app)
      .post('/api/auth/callback/email')
      .set('Cookie', cookie)
      .set(crossSite)
      .type('form')
      .send({ csrfToken: token, token: 'x'.repeat(43), email: 'a@example.com' })
    expect(link.status).toBe(403)
    expect(logs.filter((entry) => entry.event === 'request.cross_site')).toHaveLength(1)
    // response_mode=form_post: the provider's page posts to the callback. No flow cookie came with
    // it, so the flow fails, but on its own terms (the callback's answer), not the origin check's.
    const answer = await request(app)
      .post('/api/auth/callback/acme')
      .set('Cookie', cookie)
      .set({ 'Sec-Fetch-Site': 'cross-site', Origin: 'https://idp.example.com' })
      .type('form')
      .send({ code: 'c', state: 's' })
    expect(answer.status).toBe(302)
    expect(answer.headers.location).toMatch(/error=OAuthCallback|error=Callback|error=OAuthSignin/)
    expect(logs.filter((entry) => entry.event === 'request.cross_site')).toHaveLength(1)
  })
})
