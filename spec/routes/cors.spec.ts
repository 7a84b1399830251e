import express from 'express'
import request from 'supertest'
import { email, memoryAccounts, oauth2, password, type AuthOptions } from '../../lib'
import { makeApp } from '../support/app'
import { findCookie } from '../support/cookies'
import { csrfPair } from '../support/csrf'
import { clockAt } from '../support/clock'
import { VALID_AT, VECTORS, sessionCookie } from '../support/sessions'

// `cors.origins`: a page on one of those exact origins may call the session, CSRF, providers,
// sign-out and sign-in routes with the browser's cookies; every other origin and every other route
// gets no CORS header, and another site's POST is still refused by the origin check. The token of
// the double-submit CSRF check is still asked of every POST.
const APP = 'https://app.example.com'
const EVIL = 'https://evil.example'
const ALLOW_ORIGIN = 'access-control-allow-origin'
const providers = [
  oauth2({
    id: 'acme',
    clientId: 'app',
    clientSecret: 'secret',
    authorizationUrl: 'https://idp.example.com/authorize',
    tokenUrl: 'https://idp.example.com/token',
  }),
  email({ from: 'a@example.com', sendVerificationRequest: async () => undefined }),
  password({ breached: false }),
]
const corsApp = (overrides: AuthOptions = {}) =>
  makeApp({ providers, accounts: { store: memoryAccounts() }, cors: { origins: [APP] }, ...overrides })
/** What a page's fetch on `origin` sends to another site (Chromium's headers). */
const from = (origin: string) => ({ Origin: origin, 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'cors' })

function expectCors(res: request.Response, origin: string): void {
  expect(res.headers[ALLOW_ORIGIN]).toBe(origin)
  expect(res.headers['access-control-allow-credentials']).toBe('true')
  expect(res.headers.vary).toMatch(/\bOrigin\b/)
}

function expectNoCors(res: request.Response): void {
  for (const name of Object.keys(res.headers)) expect(name).not.toMatch(/^access-control-/)
}

describe('cors', () => {
  clockAt(VALID_AT)

  it.each(['session', 'csrf', 'providers'])('GET /%s answers an allowed origin with credentials', async (path) => {
    const { app } = corsApp()
    const res = await request(app).get(`/api/auth/${path}`).set(from(APP)).expect(200)
    expectCors(res, APP)
  })

  it('GET /session reads the session of the cookie an allowed origin sends', async () => {
    const { app } = corsApp()
    const res = await request(app).get('/api/auth/session').set(from(APP)).set('Cookie', sessionCookie(VECTORS.ada))
    expectCors(res, APP)
    expect(res.body.user).toBeDefined()
  })

  it.each([
    ['signin/acme', {}, 200],
    ['signin/email', { email: 'ada@example.com' }, 200],
    ['signin/credentials', {}, 200],
    ['callback/credentials', { email: 'ada@example.com', password: 'not-her-password-1' }, 401],
    ['signin/nobody', {}, 404],
  ])('POST /%s from an allowed origin passes the origin check, with its CSRF token', async (path, fields, status) => {
    const { app, logs } = corsApp()
    const { token, cookie } = await csrfPair(app)
    const res = await request(app)
      .post(`/api/auth/${path}`)
      .set(from(APP))
      .set({ Cookie: cookie, 'X-Auth-Return-Redirect': '1' })
      .type('form')
      .send({ csrfToken: token, ...fields })
    expectCors(res, APP)
    expect(res.status).toBe(status)
    expect(res.body.url).not.toMatch(/MissingCSRF/)
    expect(logs.filter((entry) => entry.event === 'request.cross_site')).toEqual([])
  })

  it('POST /signout from an allowed origin signs out with the CSRF token, and only with it', async () => {
    const { app } = corsApp()
    const { token, cookie } = await csrfPair(app)
    const signOut = (fields: Record<string, string>) =>
      request(app)
        .post('/api/auth/signout')
        .set(from(APP))
        .set({ Cookie: `${cookie}; ${sessionCookie(VECTORS.ada)}`, 'X-Auth-Return-Redirect': '1' })
        .type('form')
        .send(fields)
    const without = await signOut({})
    expectCors(without, APP)
    expect(without.status).toBe(403)
    expect(findCookie(without, 'auth.session-token')).toBeUndefined()
    const res = await signOut({ csrfToken: token, callbackUrl: `${APP}/bye` })
    expectCors(res, APP)
    expect(res.body).toEqual({ url: `${APP}/bye` })
    expect(findCookie(res, 'auth.session-token')?.value).toBe('')
  })

  it('answers the preflight of an allowed origin with the route’s method and the headers a client sends', async () => {
    const { app } = corsApp()
    for (const [path, method] of [
      ['session', 'GET'],
      ['signout', 'POST'],
      ['signin/acme', 'POST'],
      ['callback/credentials', 'POST'],
    ] as const) {
      const res = await request(app)
        .options(`/api/auth/${path}`)
        .set(from(APP))
        .set({ 'Access-Control-Request-Method': method, 'Access-Control-Request-Headers': 'content-type' })
        .expect(204)
      expectCors(res, APP)
      expect(res.headers['access-control-allow-methods']).toBe(method)
      expect(res.headers['access-control-allow-headers']).toBe('Content-Type, X-Auth-Return-Redirect, Authorization')
      expect(res.headers['access-control-max-age']).toBe('600')
      expect(res.headers.vary).toBe('Origin, Access-Control-Request-Method, Access-Control-Request-Headers')
    }
  })

  it('answers any other preflight 204 without CORS headers: another origin, or a method that is not CORS', async () => {
    const { app } = corsApp()
    const evil = await request(app)
      .options('/api/auth/session')
      .set(from(EVIL))
      .set('Access-Control-Request-Method', 'GET')
      .expect(204)
    expectNoCors(evil)
    // POST /session (the session update) is not a CORS route, nor is OPTIONS of a route without `cors`.
    const update = await request(app)
      .options('/api/auth/session')
      .set(from(APP))
      .set('Access-Control-Request-Method', 'POST')
      .expect(204)
    expectNoCors(update)
    expectNoCors(await request(app).options('/api/auth/signin').set(from(APP)).expect(405))
  })

  it('gives another origin no CORS headers, keeps refusing its POSTs, and still says the answer varies', async () => {
    const { app, logs } = corsApp()
    const session = await request(app).get('/api/auth/session').set(from(EVIL)).expect(200)
    expectNoCors(session)
    expect(session.headers.vary).toBe('Origin')
    const { token, cookie } = await csrfPair(app)
    const res = await request(app)
      .post('/api/auth/signout')
      .set(from(EVIL))
      .set({ Cookie: `${cookie}; ${sessionCookie(VECTORS.ada)}`, 'X-Auth-Return-Redirect': '1' })
      .type('form')
      .send({ csrfToken: token })
    expectNoCors(res)
    expect(res.status).toBe(403)
    expect(findCookie(res, 'auth.session-token')).toBeUndefined()
    expect(logs).toContainEqual(expect.objectContaining({ event: 'request.cross_site', route: 'signout' }))
    const noOrigin = await request(app).get('/api/auth/session').expect(200)
    expectNoCors(noOrigin)
    expect(noOrigin.headers.vary).toBe('Origin')
  })

  it('sends no CORS headers from the routes it does not list, and the origin check there trusts no CORS origin', async () => {
    const { app } = corsApp()
    for (const path of ['signin', 'signout', 'callback/acme?code=c&state=s', 'error'])
      expectNoCors(await request(app).get(`/api/auth/${path}`).set(from(APP)))
    const { token, cookie } = await csrfPair(app)
    const update = await request(app)
      .post('/api/auth/session')
      .set(from(APP))
      .set('Cookie', `${cookie}; ${sessionCookie(VECTORS.ada)}`)
      .send({ csrfToken: token, data: { name: 'Mallory' } })
    expectNoCors(update)
    expect({ status: update.status, body: update.body }).toEqual({ status: 400, body: {} })
  })

  it('sends no CORS headers and answers OPTIONS 405 when the option is unset', async () => {
    const { app } = makeApp({ providers: providers.slice(0, 1) })
    const res = await request(app).get('/api/auth/session').set(from(APP)).expect(200)
    expectNoCors(res)
    expect(res.headers.vary).toBeUndefined()
    expectNoCors(await request(app).options('/api/auth/session').set(from(APP)).expect(405))
  })

  it('adds Origin to a Vary the app set, without clobbering it', async () => {
    const app = express()
    app.use((_req, res, next) => {
      res.vary('Accept-Encoding')
      next()
    })
    const { router } = makeApp({ cors: { origins: [APP] } })
    app.use('/api/auth', router)
    const res = await request(app).get('/api/auth/session').set(from(APP)).expect(200)
    expect(res.headers.vary).toBe('Accept-Encoding, Origin')
  })

  it('makes its origins valid callbackUrl targets, in the built-in pages’ forms and their form-action too', async () => {
    const { app } = corsApp()
    const page = await request(app).get(`/api/auth/signout?callbackUrl=${encodeURIComponent(`${APP}/bye`)}`)
    expect(page.text).toContain(`value="${APP}/bye"`)
    expect(page.headers['content-security-policy']).toContain(`form-action 'self' ${APP}`)
    const { app: plain } = makeApp()
    const other = await request(plain).get(`/api/auth/signout?callbackUrl=${encodeURIComponent(`${APP}/bye`)}`)
    expect(other.text).not.toContain(APP)
  })
})
