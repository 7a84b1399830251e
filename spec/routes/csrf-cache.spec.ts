import request from 'supertest'
import { SECRET, makeApp } from '../support/app'
import { expectCookie, expectNoCookies, findCookie } from '../support/cookies'
import { csrfPair } from '../support/csrf'
import { keyRing } from '../../lib/infra/crypto/keys'
import { createCsrf } from '../../lib/infra/csrf'

// A CSRF cookie found valid is remembered by its exact value (lib/infra/csrf/index.ts), so that GET /csrf
// and every POST skip its MAC. These specs show that nothing but a valid cookie is ever accepted.

/** `value` with the character at `index` replaced by another one. */
function changeOne(value: string, index: number): string {
  return value.slice(0, index) + (value[index] === 'A' ? 'B' : 'A') + value.slice(index + 1)
}

describe('GET /csrf, asked again with the same cookie', () => {
  it('answers the same token, with no cookie, every time', async () => {
    const { app } = makeApp()
    const { token, cookie } = await csrfPair(app)
    for (let i = 0; i < 3; i++) {
      const res = await request(app).get('/api/auth/csrf').set('Cookie', cookie).expect(200)
      expect(res.body.csrfToken).toBe(token)
      expectNoCookies(res)
    }
  })

  it.each([
    ['its token', 5],
    ['its MAC', -5],
  ])('replaces a cookie with one character of %s changed, right after the real one was read', async (_part, at) => {
    const { app } = makeApp()
    const { token, cookie, value } = await csrfPair(app)
    await request(app).get('/api/auth/csrf').set('Cookie', cookie).expect(200)
    const changed = changeOne(value, at < 0 ? value.length + at : at)
    const res = await request(app).get('/api/auth/csrf').set('Cookie', `auth.csrf-token=${changed}`).expect(200)
    expect(res.body.csrfToken).not.toBe(token)
    expect(res.body.csrfToken).not.toBe(changed.split('|')[0])
    expectCookie(res, 'auth.csrf-token')
  })

  it('refuses a POST whose cookie has one character changed, right after the real one was accepted', async () => {
    const { app } = makeApp()
    const { token, value } = await csrfPair(app)
    const post = (cookieValue: string) =>
      request(app)
        .post('/api/auth/signout')
        .set('Cookie', `auth.csrf-token=${cookieValue}`)
        .type('form')
        .send({ csrfToken: token })
    expect((await post(value)).headers.location).not.toMatch(/csrf=true/)
    const refused = await post(changeOne(value, value.length - 5))
    expect(refused.headers.location).toMatch(/csrf=true/)
  })

  it('re-signs a cookie of a rotated-out secret on every request until the browser holds the new one', async () => {
    const { cookie, token } = await csrfPair(makeApp({ secret: SECRET }).app)
    const { app } = makeApp({ secret: ['n'.repeat(40), SECRET] })
    for (let i = 0; i < 2; i++) {
      const res = await request(app).get('/api/auth/csrf').set('Cookie', cookie).expect(200)
      expect(res.body.csrfToken).toBe(token)
      expectCookie(res, 'auth.csrf-token')
    }
    const resigned = expectCookie(await request(app).get('/api/auth/csrf').set('Cookie', cookie), 'auth.csrf-token')
    const settled = await request(app).get('/api/auth/csrf').set('Cookie', `auth.csrf-token=${resigned.value}`)
    expect(settled.body.csrfToken).toBe(token)
    expect(findCookie(settled, 'auth.csrf-token')).toBeUndefined()
  })

  it('accepts no cookie signed by another service, even one remembered there', async () => {
    const other = makeApp({ secret: 'o'.repeat(40) }).app
    const { cookie, token } = await csrfPair(other)
    await request(other).get('/api/auth/csrf').set('Cookie', cookie).expect(200)
    const { app } = makeApp()
    const res = await request(app).get('/api/auth/csrf').set('Cookie', cookie).expect(200)
    expect(res.body.csrfToken).not.toBe(token)
    expectCookie(res, 'auth.csrf-token')
  })
})

describe('the CSRF cookies remembered', () => {
  const csrf = createCsrf(keyRing([SECRET], 'csrf'))

  it('accept a cookie just issued, and no signed value that does not read back as valid', () => {
    const issued = csrf.issue()
    expect(csrf.inspect(issued.cookieValue)).toEqual({ token: issued.token, stale: false })
    // Signed, but not a cookie `inspect` accepts: an empty token, or one that holds the separator.
    expect(csrf.read(csrf.resign('').cookieValue)).toBeNull()
    expect(csrf.read(csrf.resign('a|b').cookieValue)).toBeNull()
  })
})
