import request from 'supertest'
import { makeApp } from '../support/app'
import { cookieHeader, expectCookie, expectNoCookies } from '../support/cookies'

describe('GET /csrf', () => {
  it('answers a token and sets its signed cookie: HttpOnly, SameSite=Lax, host-only, not cached', async () => {
    const { app } = makeApp()
    const res = await request(app).get('/api/auth/csrf').expect(200).expect('Content-Type', /json/)
    expect(Object.keys(res.body)).toEqual(['csrfToken'])
    expect(res.headers['cache-control']).toBe('private, no-cache, no-store')
    const cookie = expectCookie(res, 'auth.csrf-token', { httpOnly: true, sameSite: 'Lax', path: '/', secure: false })
    expect(cookie.attributes.domain).toBeUndefined()
    expect(cookie.value.split('|')[0]).toBe(res.body.csrfToken)
  })

  it('returns the same token while the cookie stays valid, and sets no cookie', async () => {
    const { app } = makeApp()
    const first = await request(app).get('/api/auth/csrf')
    const cookie = expectCookie(first, 'auth.csrf-token')
    const second = await request(app)
      .get('/api/auth/csrf')
      .set('Cookie', cookieHeader({ [cookie.name]: cookie.value }))
    expect(second.body.csrfToken).toBe(first.body.csrfToken)
    expectNoCookies(second)
  })

  it('replaces a cookie whose MAC does not verify', async () => {
    const { app } = makeApp()
    const res = await request(app).get('/api/auth/csrf').set('Cookie', 'auth.csrf-token=chosen-by-attacker|bogus')
    expect(res.body.csrfToken).not.toBe('chosen-by-attacker')
    expectCookie(res, 'auth.csrf-token')
  })

  it('uses the __Host- prefix and Secure on an https service', async () => {
    const { app } = makeApp({ url: 'https://example.com/api/auth' })
    const res = await request(app).get('/api/auth/csrf').expect(200)
    expectCookie(res, '__Host-auth.csrf-token', { secure: true, httpOnly: true, path: '/' })
  })
})
