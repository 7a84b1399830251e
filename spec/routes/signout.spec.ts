import express from 'express'
import request from 'supertest'
import { auth } from '../../lib'
import { makeApp, testOptions } from '../support/app'
import { expectCookie, expectNoCookies, findCookie } from '../support/cookies'
import { csrfPair } from '../support/csrf'
import { clockAt } from '../support/clock'
import { VALID_AT, VECTORS, sessionCookie } from '../support/sessions'

describe('POST /signout', () => {
  clockAt(VALID_AT)

  it('clears the session and redirects to the validated callbackUrl', async () => {
    const signedOut: unknown[] = []
    const { app, logs } = makeApp({
      events: {
        signOut: ({ record }) => {
          signedOut.push(record?.userId)
        },
      },
    })
    const { token, cookie } = await csrfPair(app)
    const session = sessionCookie(VECTORS.ada)
    const res = await request(app)
      .post('/api/auth/signout')
      .set('Cookie', `${cookie}; ${session}`)
      .type('form')
      .send({ csrfToken: token, callbackUrl: '/goodbye' })
      .expect(302)
    expect(res.headers.location).toBe('http://localhost:3000/goodbye')
    expectCookie(res, 'auth.session-token', { cleared: true })
    expect(signedOut).toEqual(['github:1'])
    expect(logs).toContainEqual(expect.objectContaining({ event: 'signout', level: 'info' }))
  })

  it('with everywhere (true in JSON, or "true"), ends every session of the user, wherever the cookie is', async () => {
    const { app, logs } = makeApp()
    const { token, cookie } = await csrfPair(app)
    // Two browsers of one user (every vector is github:1's).
    const other = sessionCookie(VECTORS.adaWithToken)
    expect((await request(app).get('/api/auth/session').set('Cookie', other)).body).toHaveProperty('user')
    await request(app)
      .post('/api/auth/signout')
      .set('Cookie', `${cookie}; ${sessionCookie(VECTORS.ada)}`)
      .send({ csrfToken: token, everywhere: true })
      .expect(302)
    const res = await request(app).get('/api/auth/session').set('Cookie', other).expect(200, {})
    expectCookie(res, 'auth.session-token', { cleared: true })
    expect(logs).toContainEqual(expect.objectContaining({ event: 'signout.everywhere', userId: 'github:1' }))
  })

  it('refuses an everywhere that is neither true nor false, and signs nothing out', async () => {
    const { app } = makeApp()
    const { token, cookie } = await csrfPair(app)
    for (const everywhere of ['yes', 'TRUE', '1', ['true']]) {
      const res = await request(app)
        .post('/api/auth/signout')
        .set('Cookie', `${cookie}; ${sessionCookie(VECTORS.ada)}`)
        .set('Accept', 'application/json')
        .send({ csrfToken: token, everywhere })
        .expect(400, { error: 'InvalidBody' })
      expect(findCookie(res, 'auth.session-token')).toBeUndefined()
    }
    await request(app)
      .post('/api/auth/signout')
      .set('Cookie', `${cookie}; ${sessionCookie(VECTORS.ada)}`)
      .send({ csrfToken: token, everywhere: 'false' })
      .expect(302)
    const still = await request(app).get('/api/auth/session').set('Cookie', sessionCookie(VECTORS.adaWithToken))
    expect(still.body).toHaveProperty('user')
  })

  it('answers {url} in JSON mode: json=true in the body, or the X-Auth-Return-Redirect header', async () => {
    const { app } = makeApp()
    const { token, cookie } = await csrfPair(app)
    const v4 = await request(app)
      .post('/api/auth/signout')
      .set('Cookie', cookie)
      .type('form')
      .send({ csrfToken: token, json: 'true', callbackUrl: 'http://localhost:3000/x' })
      .expect(200)
    expect(v4.body).toEqual({ url: 'http://localhost:3000/x' })
    const v5 = await request(app)
      .post('/api/auth/signout')
      .set('Cookie', cookie)
      .set('X-Auth-Return-Redirect', '1')
      .send({ csrfToken: token })
      .expect(200)
    expect(v5.body).toEqual({ url: 'http://localhost:3000/' })
  })

  it('signs nobody out without a valid CSRF token: 302 to the page with csrf=true, or 403 in JSON mode', async () => {
    const { app, logs } = makeApp()
    const { token, cookie } = await csrfPair(app)
    const session = sessionCookie(VECTORS.ada)
    const page = await request(app)
      .post('/api/auth/signout')
      .set('Cookie', session)
      .type('form')
      .send({ csrfToken: token })
      .expect(302)
    expect(page.headers.location).toBe('http://localhost:3000/api/auth/signout?csrf=true')
    expectNoCookies(page)
    const json = await request(app)
      .post('/api/auth/signout')
      .set('Cookie', `${cookie}; ${session}`)
      .type('form')
      .send({ csrfToken: 'forged', json: 'true' })
      .expect(403)
    expect(json.body).toEqual({ url: 'http://localhost:3000/api/auth/signout?csrf=true&error=MissingCSRF' })
    expectNoCookies(json)
    expect(logs.filter((entry) => entry.event === 'csrf.invalid')).toHaveLength(2)
  })

  it('reads the CSRF token from the body only, never the query string or a header', async () => {
    const { app } = makeApp()
    const { token, cookie } = await csrfPair(app)
    const session = sessionCookie(VECTORS.ada)
    const query = await request(app)
      .post(`/api/auth/signout?csrfToken=${token}`)
      .set('Cookie', `${cookie}; ${session}`)
      .expect(302)
    expect(query.headers.location).toMatch(/csrf=true/)
    const header = await request(app)
      .post('/api/auth/signout')
      .set('Cookie', `${cookie}; ${session}`)
      .set('X-CSRF-Token', token)
      .set('csrf-token', token)
      .expect(302)
    expect(header.headers.location).toMatch(/csrf=true/)
  })

  it('never signs out on GET', async () => {
    const { app } = makeApp()
    const res = await request(app).get('/api/auth/signout').set('Cookie', sessionCookie(VECTORS.ada)).expect(200)
    expect(findCookie(res, 'auth.session-token')).toBeUndefined()
  })

  it.each([
    ['express.json()', 'json'],
    ['express.urlencoded()', 'form'],
  ] as const)('accepts a body the host app already parsed with %s', async (_label, type) => {
    const host = express()
    host.use(express.json(), express.urlencoded({ extended: false }))
    const { logs, ...options } = testOptions()
    host.use('/api/auth', auth(options))
    const { token, cookie } = await csrfPair(host)
    const res = await request(host)
      .post('/api/auth/signout')
      .set('Cookie', cookie)
      .type(type)
      .send({ csrfToken: token, callbackUrl: '/after' })
      .expect(302)
    expect(res.headers.location).toBe('http://localhost:3000/after')
    // No entry but the set-up warnings (no providers; supertest's Host is not `url`'s).
    expect(logs.filter((entry) => entry.event !== 'config.warning')).toEqual([])
  })
})
