import request from 'supertest'
import { oidc } from '../../lib'
import { makeApp } from '../support/app'
import { restoreClock, useClock } from '../support/clock'
import { expectCookie, expectNoCookies, findCookie } from '../support/cookies'
import { forms } from '../support/forms'
import { VALID_AT, VECTORS, sessionCookie } from '../support/sessions'

const provider = (id: string, name: string) =>
  oidc({ id, name, issuer: 'https://idp.example.com', clientId: 'app', clientSecret: 'secret' })
// The e-mail form is covered by spec/http/render.spec.ts until the e-mail provider exists.
const providers = [provider('github', 'GitHub'), provider('okta', 'Okta')]
const HOSTILE = '"><script>alert(1)</script>'

/** The forms of a page: how and where each posts, and its fields. */
const formsOf = (html: string) => forms(html).map(({ method, action, fields }) => ({ method, action, fields }))

/** Every URL the page loads or links to: all must be on the service's own origin. */
function externalUrls(html: string) {
  return [...html.matchAll(/(?:href|src|action)="([^"]+)"/g)]
    .map(([, url]) => url!)
    .filter((url) => new URL(url).origin !== 'http://localhost:3000')
}

describe('the built-in pages', () => {
  afterEach(restoreClock)

  it('GET /signin shows a form per OAuth provider, with the CSRF token its cookie holds', async () => {
    const { app } = makeApp({ providers })
    const res = await request(app)
      .get('/api/auth/signin?callbackUrl=%2Fdashboard')
      .expect(200)
      .expect('Content-Type', /html/)
    const token = expectCookie(res, 'auth.csrf-token', { httpOnly: true }).value.split('|')[0]
    expect(formsOf(res.text)).toEqual([
      {
        method: 'post',
        action: 'http://localhost:3000/api/auth/signin/github',
        fields: { csrfToken: token, callbackUrl: 'http://localhost:3000/dashboard' },
      },
      {
        method: 'post',
        action: 'http://localhost:3000/api/auth/signin/okta',
        fields: { csrfToken: token, callbackUrl: 'http://localhost:3000/dashboard' },
      },
    ])
    expect(res.text).toContain('Sign in with GitHub')
    expect(res.text).not.toMatch(/<input[^>]*name="email"/)
    expect(res.headers['cache-control']).toBe('private, no-cache, no-store')
  })

  it('GET /signin shows the message for ?error= and for ?csrf=true, never the raw value', async () => {
    const { app } = makeApp({ providers })
    const known = await request(app).get('/api/auth/signin?error=OAuthCallback').expect(200)
    expect(known.text).toMatch(/role="alert"/)
    const csrf = await request(app).get('/api/auth/signin?csrf=true').expect(200)
    expect(csrf.text).toMatch(/role="alert"/)
    const hostile = await request(app)
      .get(
        `/api/auth/signin?error=${encodeURIComponent(HOSTILE)}&callbackUrl=${encodeURIComponent('javascript:alert(1)')}&email=${encodeURIComponent(HOSTILE)}`,
      )
      .expect(200)
    expect(hostile.text).not.toContain('<script>')
    expect(hostile.text).not.toContain('javascript:')
    expect(formsOf(hostile.text)[0]?.fields.callbackUrl).toBe('http://localhost:3000/')
  })

  it('GET /signout asks first and signs nobody out', async () => {
    useClock(VALID_AT)
    const { app } = makeApp()
    const res = await request(app)
      .get('/api/auth/signout?callbackUrl=%2Fbye')
      .set('Cookie', sessionCookie(VECTORS.ada))
      .expect(200)
    const [form] = formsOf(res.text)
    expect(form).toEqual({
      method: 'post',
      action: 'http://localhost:3000/api/auth/signout',
      fields: { csrfToken: expect.any(String), callbackUrl: 'http://localhost:3000/bye' },
    })
    expectCookie(res, 'auth.csrf-token')
    expect(res.text).not.toMatch(/session-token/)
    expect(findCookie(res, 'auth.session-token')).toBeUndefined()
  })

  it('GET /verify-request and GET /error render pages', async () => {
    const { app } = makeApp()
    const verify = await request(app).get('/api/auth/verify-request').expect(200).expect('Content-Type', /html/)
    expect(verify.text).toMatch(/Check your email/i)
    expectNoCookies(verify)
    const error = await request(app).get('/api/auth/error?error=Verification').expect(403)
    expect(error.text).toMatch(/no longer valid/i)
    expect(error.text).toContain('href="http://localhost:3000/api/auth/signin"')
  })

  it.each([
    [
      'signIn',
      '/api/auth/signin?error=OAuthCallback&callbackUrl=%2Fx',
      'https://login.example.com/start?error=OAuthCallback&callbackUrl=%2Fx',
    ],
    ['signOut', '/api/auth/signout?callbackUrl=%2Fx', 'http://localhost:3000/bye?callbackUrl=%2Fx'],
    [
      'verifyRequest',
      '/api/auth/verify-request?provider=email&type=email',
      'http://localhost:3000/check-mail?provider=email&type=email',
    ],
  ])("redirects to the app's own page (pages.%s) with the query carried over", async (page, path, location) => {
    const { app } = makeApp({
      pages: { signIn: 'https://login.example.com/start', signOut: '/bye', verifyRequest: '/check-mail' },
    })
    const res = await request(app).get(path).expect(302)
    expect(res.headers.location).toBe(location)
    void page
  })

  // form-action names where each page's forms may lead, redirects included: the sign-in page's to
  // the providers' authorization origin (before discovery, the issuer's), the trusted origins and
  // the app's own pages on other origins; a page without a form may post nowhere.
  const STRICT = "default-src 'none'; style-src 'self'; base-uri 'none'; frame-ancestors 'none'"
  const SOURCES = "'self' https://app.example.com https://login.example.com"
  it.each([
    ['/api/auth/signin', `form-action ${SOURCES} https://idp.example.com`],
    ['/api/auth/signout', `form-action ${SOURCES}`],
    ['/api/auth/verify-request', "form-action 'none'"],
    ['/api/auth/error?error=AccessDenied', "form-action 'none'"],
  ])('%s loads nothing from elsewhere and is served with a strict CSP', async (path, formAction) => {
    // The app's own verify-request page is elsewhere (then that route redirects there, not rendered).
    const pages = path.includes('verify-request') ? {} : { verifyRequest: 'https://login.example.com/check' }
    const { app } = makeApp({ providers, trustedOrigins: ['https://app.example.com'], pages })
    const res = await request(app).get(path)
    expect(externalUrls(res.text)).toEqual([])
    expect(res.text).not.toMatch(/<script|style=|<style/i)
    expect(res.text).toMatch(/<html lang="en">/)
    expect(res.headers['content-security-policy']).toBe(`${STRICT}; ${formAction}`)
    expect(res.headers['referrer-policy']).toBe('same-origin')
    expect(res.headers['x-frame-options']).toBe('DENY')
    expect(res.headers['x-content-type-options']).toBe('nosniff')
  })

  it('serves its stylesheet with a validator', async () => {
    const { app } = makeApp()
    const res = await request(app)
      .get('/api/auth/assets/style.css')
      .expect(200)
      .expect('Content-Type', /text\/css/)
    expect(res.text).toMatch(/:focus-visible/)
    await request(app).get('/api/auth/assets/style.css').set('If-None-Match', res.headers.etag!).expect(304)
    await request(app).get('/api/auth/assets/other.css').expect(404)
  })

  it("does not mistake Object's own properties for routes", async () => {
    const { app } = makeApp()
    for (const path of ['constructor', '__proto__', 'toString', 'hasOwnProperty'])
      await request(app).get(`/api/auth/${path}`).expect(404)
  })

  it("leaves the host app's view engine alone", async () => {
    const { app } = makeApp()
    await request(app).get('/api/auth/signin').expect(200)
    expect(app.get('view engine')).toBeUndefined()
  })
})
