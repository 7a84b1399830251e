/**
 * Attack on issue 31 (every route's policy as data in lib/core/feature.ts, enforced once in
 * lib/core/router.ts), as an outsider would, over HTTP. The requests were also sent to the tree
 * before the change (92ab739): none that it refused gets through now, and none answers 5xx. No
 * finding broke, so every check here is a plain `it`: they keep the policy from drifting.
 */
import request from 'supertest'
import type { App } from 'supertest/types'
import { email, oauth2, passkey } from '../../lib'
import { makeApp } from '../support/app'
import { csrfPair } from '../support/csrf'

const EVIL = 'https://evil.example'
const CROSS_SITE = { 'Sec-Fetch-Site': 'cross-site', Origin: EVIL }

/** acme (OAuth), email and passkey; a limit of one counted request per client IP, the IP from X-Forwarded-For. */
function limitedApp() {
  const made = makeApp({
    providers: [
      oauth2({
        id: 'acme',
        clientId: 'app',
        clientSecret: 'secret',
        authorizationUrl: 'https://idp.example.com/authorize',
        tokenUrl: 'https://idp.example.com/token',
      }),
      email({ from: 'a@example.com', sendVerificationRequest: async () => undefined }),
      passkey(),
    ],
    requestRateLimit: { limit: 1, windowSeconds: 600 },
  })
  made.app.set('trust proxy', true)
  return made
}

let nextIp = 1
const freshIp = () => `198.51.100.${nextIp++}`

/** Whether `ip` has used up its allowance: a sign-in that is always counted answers 429. */
async function usedUp(app: App, ip: string): Promise<boolean> {
  const { token, cookie } = await csrfPair(app)
  const witness = await request(app)
    .post('/api/auth/signin/acme')
    .set('Cookie', cookie)
    .set('X-Forwarded-For', ip)
    .type('form')
    .send({ csrfToken: token })
  return witness.status === 429
}

describe('a POST from another site, with a valid CSRF token and cookie', () => {
  it.each([
    'signin/acme',
    'signin/email',
    'signin/acm%65',
    'signin/passkey',
    'signin/__proto__',
    'callback/email',
    'callback/emai%6C',
    'callback/passkey',
    'callback/passke%79',
    'callback/nope',
    'callback/__proto__',
    'callback/constructor',
    'callback/acme%2F',
    'callback/%00',
    'callback/ACME',
    'signout',
    'session',
    '_log',
  ])('is refused at %s before its handler, and not counted', async (path) => {
    const { app, logs } = limitedApp()
    const { token, cookie } = await csrfPair(app)
    const ip = freshIp()
    const res = await request(app)
      .post(`/api/auth/${path}`)
      .set('Cookie', `${cookie}; auth.flow.x=junk`)
      .set('X-Forwarded-For', ip)
      .set(CROSS_SITE)
      .type('form')
      .send({ csrfToken: token, token: 'x'.repeat(43), email: 'a@example.com', level: 'error', code: 'X' })
    expect(res.status).not.toBe(200)
    expect(res.status).toBeLessThan(500)
    expect(logs.map((entry) => entry.event)).toContain('request.cross_site')
    expect(logs.map((entry) => entry.event)).not.toContain('client.log')
    expect(await usedUp(app, ip)).toBe(false)
  })

  it.each(['callback/acme', 'callback/acm%65', 'callback/acme/'])(
    'reaches an OAuth callback (%s, response_mode=form_post), which counts it',
    async (path) => {
      const { app, logs } = limitedApp()
      const ip = freshIp()
      const res = await request(app)
        .post(`/api/auth/${path}`)
        .set('X-Forwarded-For', ip)
        .set({ 'Sec-Fetch-Site': 'cross-site', Origin: 'https://idp.example.com' })
        .type('form')
        .send({ code: 'c', state: 's' })
      expect(res.headers.location).toBe('http://localhost:3000/api/auth/error?error=OAuthCallback')
      expect(logs.map((entry) => entry.event)).not.toContain('request.cross_site')
      expect(await usedUp(app, ip)).toBe(true)
    },
  )
})

describe('the passkey options (a GET that keeps a challenge)', () => {
  it.each([
    ['GET', 'webauthn-options/passkey'],
    ['GET', 'webauthn-options/passke%79'],
    ['GET', 'webauthn-options/passkey/'],
    ['HEAD', 'webauthn-options/passkey'],
  ])('%s %s from another site: 403, no challenge, not counted', async (method, path) => {
    const { app } = limitedApp()
    const ip = freshIp()
    const agent = request(app)
    const res = await (method === 'GET' ? agent.get(`/api/auth/${path}`) : agent.head(`/api/auth/${path}`))
      .set('X-Forwarded-For', ip)
      .set(CROSS_SITE)
    expect(res.status).toBe(403)
    expect(String(res.headers['set-cookie'] ?? '')).not.toMatch(/webauthn-challenge/)
    expect(await usedUp(app, ip)).toBe(false)
  })

  it('from our own page: counted, with or without a flow cookie', async () => {
    const { app } = limitedApp()
    const ip = freshIp()
    const res = await request(app).get('/api/auth/webauthn-options/passkey').set('X-Forwarded-For', ip)
    expect(res.status).toBe(200)
    expect(await usedUp(app, ip)).toBe(true)
  })
})

describe('counting', () => {
  it('a callback GET counts with a flow cookie only; a POST refused for its CSRF token never counts', async () => {
    const { app } = limitedApp()
    const { cookie } = await csrfPair(app)
    const bare = freshIp()
    await request(app).get('/api/auth/callback/acme?code=c&state=s').set('X-Forwarded-For', bare)
    expect(await usedUp(app, bare)).toBe(false)
    const flow = freshIp()
    await request(app)
      .get('/api/auth/callback/acme?code=c&state=s')
      .set('Cookie', 'auth.flow.x=junk')
      .set('X-Forwarded-For', flow)
    expect(await usedUp(app, flow)).toBe(true)
    for (const path of ['signin/acme', 'signin/email', 'callback/passkey']) {
      const ip = freshIp()
      const res = await request(app)
        .post(`/api/auth/${path}`)
        .set('Cookie', cookie)
        .set('X-Forwarded-For', ip)
        .type('form')
        .send({ csrfToken: 'wrong' })
      expect(res.headers.location).toBe('http://localhost:3000/api/auth/signin?csrf=true')
      expect(await usedUp(app, ip)).toBe(false)
    }
  })
})

describe('bodies, methods and ids that do not decode', () => {
  it('the client log takes 4096 bytes; back-channel logout answers a large body with its own 400', async () => {
    const { app } = limitedApp()
    const log = await request(app)
      .post('/api/auth/_log')
      .type('form')
      .send({ level: 'error', code: 'X', message: 'm'.repeat(5000) })
    expect(log.status).toBe(413)
    const logout = await request(app)
      .post('/api/auth/backchannel-logout/acme')
      .type('form')
      .send({ logout_token: 'm'.repeat(20_000) })
    expect(logout.status).toBe(400)
    expect(logout.body.error).toBe('invalid_request')
  })

  it.each([
    ['PUT', 'callback/acme', 'GET, HEAD, POST'],
    ['PUT', 'callback/passkey', 'GET, HEAD, POST'],
    ['DELETE', 'signin/acme', 'POST'],
    ['POST', 'webauthn-options/passkey', 'GET, HEAD'],
    ['PATCH', 'backchannel-logout/acme', 'GET, HEAD, POST'],
    ['POST', 'signout-callback/acme', 'GET, HEAD'],
  ])('%s %s: 405 with Allow: %s', async (method, path, allow) => {
    const { app } = limitedApp()
    const res = await request(app)[method.toLowerCase() as 'put'](`/api/auth/${path}`)
    expect({ status: res.status, allow: res.headers.allow }).toEqual({ status: 405, allow })
  })

  it.each(['callback/%E0', 'signin/%E0', 'backchannel-logout/%E0', 'webauthn-options/%E0', 'callback/%'])(
    'POST %s: 404 (405 where no POST is served), never a 5xx',
    async (path) => {
      const { app } = limitedApp()
      const { token, cookie } = await csrfPair(app)
      const res = await request(app)
        .post(`/api/auth/${path}`)
        .set('Cookie', cookie)
        .type('form')
        .send({ csrfToken: token })
      expect(res.status).toBe(path.startsWith('webauthn-options') ? 405 : 404)
    },
  )
})
