import request from 'supertest'
import { oauth2 } from '../../lib'
import { makeApp } from '../support/app'
import { configError } from '../support/config-error'
import { csrfPair } from '../support/csrf'

// The request-rate limit on the routes that make the service call a provider or send mail:
// `POST /signin/*` and `/callback/*`, per client IP as the app's `trust proxy` gives it.
const acme = oauth2({
  id: 'acme',
  clientId: 'app',
  clientSecret: 'secret',
  authorizationUrl: 'https://idp.example.com/authorize',
  tokenUrl: 'https://idp.example.com/token',
})

function limitedApp(limit: number) {
  const made = makeApp({ providers: [acme], requestRateLimit: { limit, windowSeconds: 60 } })
  // X-Forwarded-For decides req.ip, so that the spec can be several clients.
  made.app.set('trust proxy', true)
  return made
}

async function signIn(app: Parameters<typeof request>[0], ip: string, json = false) {
  const { token, cookie } = await csrfPair(app)
  return request(app)
    .post('/api/auth/signin/acme')
    .set('Cookie', cookie)
    .set('X-Forwarded-For', ip)
    .set(json ? { 'X-Auth-Return-Redirect': '1' } : {})
    .type('form')
    .send({ csrfToken: token })
}

describe('requestRateLimit', () => {
  it('answers 429 with Retry-After past the limit, per client IP, on the error page', async () => {
    const { app } = limitedApp(2)
    for (let i = 0; i < 2; i++) expect((await signIn(app, '203.0.113.1')).status).toBe(302)
    const refused = await signIn(app, '203.0.113.1')
    expect(refused.status).toBe(429)
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0)
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60)
    expect(refused.headers['content-type']).toMatch(/html/)
    // Another client is not held back by the first.
    expect((await signIn(app, '203.0.113.2')).status).toBe(302)
  })

  it('tells the NextAuth client (JSON mode) with {url} of the error page and status 429', async () => {
    const { app } = limitedApp(1)
    expect((await signIn(app, '203.0.113.1', true)).status).toBe(200)
    const refused = await signIn(app, '203.0.113.1', true)
    expect(refused.status).toBe(429)
    expect(refused.headers['retry-after']).toBeDefined()
    expect(refused.body).toEqual({ url: 'http://localhost:3000/api/auth/error?error=TooManyRequests' })
  })

  it('counts callbacks that carry a flow cookie, and leaves every other request alone', async () => {
    const { app } = limitedApp(2)
    const ip = '203.0.113.9'
    const callback = (cookie?: string) => {
      const req = request(app).get('/api/auth/callback/acme?code=c&state=s').set('X-Forwarded-For', ip)
      return cookie ? req.set('Cookie', cookie) : req
    }
    // Another site's <img> pointing at a callback comes without the (SameSite=Lax) flow cookie:
    // it cannot reach a provider, and it does not use up the visitor's allowance.
    for (let i = 0; i < 5; i++) expect((await callback()).status).not.toBe(429)
    for (const path of ['/session', '/csrf', '/providers', '/signin', '/signout', '/error']) {
      expect((await request(app).get(`/api/auth${path}`).set('X-Forwarded-For', ip)).status).toBeLessThan(400)
    }
    for (let i = 0; i < 2; i++) expect((await callback('auth.flow.f1=x')).status).not.toBe(429)
    expect((await callback('auth.flow.f2=y')).status).toBe(429)
    expect((await signIn(app, ip)).status).toBe(429)
  })

  it('does not count a POST the CSRF check refused: it sent no mail and called no provider', async () => {
    const { app } = limitedApp(2)
    const ip = '203.0.113.5'
    const { cookie } = await csrfPair(app)
    for (let i = 0; i < 5; i++) {
      const refused = await request(app)
        .post('/api/auth/signin/acme')
        .set('Cookie', cookie)
        .set('X-Forwarded-For', ip)
        .type('form')
        .send({ csrfToken: 'not-the-token' })
      // Sent back to the sign-in page, as a bad token always is: not a 429.
      expect(refused.status).toBe(302)
      expect(refused.headers.location).toMatch(/\/api\/auth\/signin\b/)
    }
    for (let i = 0; i < 2; i++) expect((await signIn(app, ip)).status).toBe(302)
    expect((await signIn(app, ip)).status).toBe(429)
  })

  it('counts made-up forwarded addresses under one key, so they earn no fresh allowance', async () => {
    const { app } = limitedApp(2)
    expect((await signIn(app, 'not-an-ip')).status).toBe(302)
    expect((await signIn(app, 'also-not-an-ip')).status).toBe(302)
    expect((await signIn(app, 'still-not-an-ip')).status).toBe(429)
  })

  it.each([
    [{ limit: 0 }, '`requestRateLimit.limit` must be a whole number from 1 to 1000000; got 0'],
    [{ limit: 1.5 }, '`requestRateLimit.limit` must be a whole number from 1 to 1000000; got 1.5'],
    [{ windowSeconds: -1 }, '`requestRateLimit.windowSeconds` must be a whole number from 1 to 86400; got -1'],
    [{ limits: 5 }, 'Unknown option `requestRateLimit.limits`. Did you mean `requestRateLimit.limit`?'],
    [5, '`requestRateLimit` must be an object; got 5'],
  ])('fails fast at auth() on requestRateLimit %j', (value, message) => {
    expect(configError(() => makeApp({ requestRateLimit: value as never }))).toBe(message)
  })
})
