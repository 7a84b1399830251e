import express from 'express'
import request from 'supertest'
import { auth } from '../../lib'
import { testOptions } from '../support/app'
import { cookieHeader, expectCookie } from '../support/cookies'

/**
 * Attacks on what issue 21 added, from outside: the CSRF helpers for the app's own forms
 * (`getCsrfToken(req, res)`, `verifyCsrfToken(req, submitted)`). A page that carries a CSRF token
 * (and the Set-Cookie of its pair) is kept by no cache, as the service's own pages are: a shared
 * cache would hand one browser's token, or a whole cookie pair, to every later visitor.
 */

function formApp() {
  const { logs: _logs, ...options } = testOptions()
  const router = auth(options)
  const app = express()
  app.use('/api/auth', router)
  // An app page with a form, written as docs/options.md describes: nothing about caching.
  app.get('/form', (req, res) => {
    res.send(
      `<form method="post" action="/action"><input name="csrfToken" value="${router.getCsrfToken(req, res)}"></form>`,
    )
  })
  app.post('/action', express.urlencoded({ extended: false }), (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>
    res.status(router.verifyCsrfToken(req, body.csrfToken) ? 200 : 403).end()
  })
  return app
}

describe('getCsrfToken(req, res) on a page of the app', () => {
  it('marks the page that gets a new cookie pair as kept by no cache', async () => {
    const res = await request(formApp()).get('/form').expect(200)
    expectCookie(res, 'auth.csrf-token')
    expect(res.headers['cache-control']).toMatch(/\bno-store\b/)
    expect(res.headers['cache-control']).toMatch(/\bprivate\b/)
  })

  it("marks the page that shows an existing cookie's token as kept by no cache", async () => {
    const app = formApp()
    const first = await request(app).get('/form')
    const { name, value } = expectCookie(first, 'auth.csrf-token')
    const again = await request(app)
      .get('/form')
      .set('Cookie', cookieHeader({ [name]: value }))
      .expect(200)
    expect(again.headers['set-cookie']).toBeUndefined()
    expect(again.headers['cache-control']).toMatch(/\bno-store\b/)
  })

  it('still gives the token of a valid cookie on a page whose headers have gone (a streamed page)', async () => {
    const { logs: _logs, ...options } = testOptions()
    const router = auth(options)
    const app = express()
    app.get('/form', (req, res) => res.json({ token: router.getCsrfToken(req, res) }))
    app.get('/streamed', (req, res) => {
      res.write('<p>')
      res.end(`${router.getCsrfToken(req, res)}</p>`)
    })
    const first = await request(app).get('/form')
    const { name, value } = expectCookie(first, 'auth.csrf-token')
    const streamed = await request(app)
      .get('/streamed')
      .set('Cookie', cookieHeader({ [name]: value }))
      .expect(200)
    expect(streamed.text).toBe(`<p>${(first.body as { token: string }).token}</p>`)
  })
})

describe('verifyCsrfToken(req, submitted): type confusion and borrowed tokens', () => {
  it('accepts only the string token of the cookie it came with', async () => {
    const app = formApp()
    const mint = async () => {
      const res = await request(app).get('/form')
      const { name, value } = expectCookie(res, 'auth.csrf-token')
      return { cookie: cookieHeader({ [name]: value }), token: /value="([^"]+)"/.exec(res.text)![1]! }
    }
    const mine = await mint()
    const theirs = await mint()
    const post = (cookie: string, body: string) =>
      request(app).post('/action').set('Cookie', cookie).type('form').send(body)
    await post(mine.cookie, `csrfToken=${mine.token}`).expect(200)
    // A token minted for another browser's cookie.
    await post(mine.cookie, `csrfToken=${theirs.token}`).expect(403)
    // The token twice (an array with a parser that makes one), empty, or absent.
    await post(mine.cookie, `csrfToken=${mine.token}&csrfToken=${mine.token}`).expect(403)
    await post(mine.cookie, 'csrfToken=').expect(403)
    await post(mine.cookie, '').expect(403)
    // The cookie's whole value (token|mac) is not the token.
    const whole = decodeURIComponent(mine.cookie.split('=').slice(1).join('='))
    await post(mine.cookie, `csrfToken=${encodeURIComponent(whole)}`).expect(403)
    // The token in the query string or a header is not the form's field.
    await request(app).post(`/action?csrfToken=${mine.token}`).set('Cookie', mine.cookie).expect(403)
    await request(app).post('/action').set('Cookie', mine.cookie).set('csrfToken', mine.token).expect(403)
  })
})

describe('verifyCsrfToken(req, submitted): a browser POST from another site', () => {
  it("is refused as the service's own POSTs refuse it, even with the cookie and its token", async () => {
    const app = formApp()
    const first = await request(app).get('/form')
    const { name, value } = expectCookie(first, 'auth.csrf-token')
    const cookie = cookieHeader({ [name]: value })
    const token = /value="([^"]+)"/.exec(first.text)![1]!
    const fromEvil = { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' }
    // The service's own POST: the origin check behind the token refuses it.
    const signout = await request(app)
      .post('/api/auth/signout')
      .set('Cookie', cookie)
      .set(fromEvil)
      .type('form')
      .send({ csrfToken: token })
    expect(signout.headers.location).toBe('http://localhost:3000/api/auth/signout?csrf=true')
    // The app's own POST route, checked with the helper the service gives it for that.
    await request(app)
      .post('/action')
      .set('Cookie', cookie)
      .set(fromEvil)
      .type('form')
      .send({ csrfToken: token })
      .expect(403)
    // Without Sec-Fetch-Site, a foreign Origin says the same.
    await request(app)
      .post('/action')
      .set('Cookie', cookie)
      .set('origin', 'https://evil.example')
      .type('form')
      .send({ csrfToken: token })
      .expect(403)
    // The site's own page posting, and a client that sends neither header, still pass.
    const own = { 'sec-fetch-site': 'same-origin', origin: 'http://localhost:3000' }
    await request(app)
      .post('/action')
      .set('Cookie', cookie)
      .set(own)
      .type('form')
      .send({ csrfToken: token })
      .expect(200)
    await request(app).post('/action').set('Cookie', cookie).type('form').send({ csrfToken: token }).expect(200)
  })
})
