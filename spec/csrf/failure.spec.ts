import request from 'supertest'
import { makeApp } from '../support/app'
import { csrfPair } from '../support/csrf'

// What a POST without a valid CSRF token gets back. JSON answers carry no-store: a shared cache
// must not keep one browser's answer for another.
const NO_STORE = 'private, no-cache, no-store'

describe('a POST without a valid CSRF token', () => {
  it('POST /session: 400 {}, not stored', async () => {
    const { app } = makeApp()
    const res = await request(app).post('/api/auth/session').type('form').send({ csrfToken: 'forged' })
    expect(res.status).toBe(400)
    expect(res.text).toBe('{}')
    expect(res.headers['cache-control']).toBe(NO_STORE)
  })

  it('POST /signin/:provider in JSON mode: 403 with the MissingCSRF url, not stored', async () => {
    const { app } = makeApp()
    const res = await request(app).post('/api/auth/signin/github').type('form').send({ json: 'true' })
    expect(res.status).toBe(403)
    expect(res.body).toEqual({ url: 'http://localhost:3000/api/auth/signin?csrf=true&error=MissingCSRF' })
    expect(res.headers['cache-control']).toBe(NO_STORE)
  })

  it('POST /signout: back to the sign-out page with csrf=true', async () => {
    const { app } = makeApp()
    const res = await request(app).post('/api/auth/signout').type('form').send({ csrfToken: 'forged' })
    expect(res.status).toBe(302)
    expect(res.headers.location).toBe('http://localhost:3000/api/auth/signout?csrf=true')
  })
})

describe('a POST with its CSRF token, in JSON mode', () => {
  it('POST /signout answers {url}, not stored', async () => {
    const { app } = makeApp()
    const { token, cookie } = await csrfPair(app)
    const res = await request(app)
      .post('/api/auth/signout')
      .set('Cookie', cookie)
      .type('form')
      .send({ csrfToken: token, json: 'true' })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ url: 'http://localhost:3000/' })
    expect(res.headers['cache-control']).toBe(NO_STORE)
  })
})
