import request from 'supertest'
import { makeApp } from '../support/app'
import { expectNoCookies } from '../support/cookies'
import { csrfPair } from '../support/csrf'
import { VECTORS, sessionCookie } from '../support/sessions'

describe('bad input gets a clear answer and changes nothing', () => {
  it('answers 404 for unknown paths under the base path and leaves other paths to the host', async () => {
    const { app } = makeApp()
    await request(app).get('/api/auth/nope').expect(404)
    await request(app).get('/api/auth/a/b/c').expect(404)
    await request(app).get('/api/auth/signin%E0%A4%A').expect(404)
    await request(app).get('/').expect(200, 'home')
  })

  it('answers 405 with Allow for a known path and a method it does not serve', async () => {
    const { app } = makeApp()
    const del = await request(app).delete('/api/auth/session').expect(405)
    expect(del.headers.allow).toBe('GET, HEAD, POST')
    const post = await request(app).post('/api/auth/csrf').expect(405)
    expect(post.headers.allow).toBe('GET, HEAD')
    const put = await request(app).put('/api/auth/signout').expect(405)
    expect(put.headers.allow).toBe('GET, HEAD, POST')
  })

  it('answers errors as JSON to a client that prefers JSON', async () => {
    const { app } = makeApp()
    await request(app).get('/api/auth/nope').set('Accept', 'application/json').expect(404, { error: 'NotFound' })
  })

  it('answers 413 for a body over the limit, before reading it', async () => {
    const { app } = makeApp()
    const { token, cookie } = await csrfPair(app)
    const session = sessionCookie(VECTORS.ada)
    const res = await request(app)
      .post('/api/auth/signout')
      .set('Cookie', `${cookie}; ${session}`)
      .type('form')
      .send(`csrfToken=${token}&pad=${'x'.repeat(70 * 1024)}`)
      .expect(413)
    expectNoCookies(res)
  })

  it('answers 400 for malformed JSON and 415 for other content types', async () => {
    const { app } = makeApp()
    const { cookie } = await csrfPair(app)
    await request(app)
      .post('/api/auth/signout')
      .set('Cookie', cookie)
      .set('Content-Type', 'application/json')
      .send('{"csrfToken": ')
      .expect(400)
    await request(app)
      .post('/api/auth/signout')
      .set('Cookie', cookie)
      .set('Content-Type', 'text/plain')
      .send('csrfToken=x')
      .expect(415)
    await request(app)
      .post('/api/auth/signout')
      .set('Cookie', cookie)
      .set('Content-Type', 'multipart/form-data; boundary=x')
      .send('--x--')
      .expect(415)
  })

  it('treats a JSON body that is not an object as empty (CSRF then fails)', async () => {
    const { app } = makeApp()
    const { cookie } = await csrfPair(app)
    for (const body of ['[1,2]', '"text"', 'null', '42']) {
      const res = await request(app)
        .post('/api/auth/signout')
        .set('Cookie', cookie)
        .set('Content-Type', 'application/json')
        .send(body)
        .expect(302)
      expect(res.headers.location).toMatch(/csrf=true/)
    }
  })

  it.each([
    ['%', '%'],
    ['%ZZ', '%ZZ'],
    ['broken UTF-8', '%E0%A4%A'],
    ['j: JSON', 'j:{"__proto__":{"x":1}}'],
    ['quoted', '"quoted"'],
    ['4 KB', 'a'.repeat(4000)],
  ])('survives a malformed cookie (%s) on every route', async (_label, value) => {
    const { app } = makeApp()
    const cookie = `auth.session-token=${value}; auth.csrf-token=${value}; auth.callback-url=${value}`
    await request(app).get('/api/auth/session').set('Cookie', cookie).expect(200, {})
    await request(app).get('/api/auth/csrf').set('Cookie', cookie).expect(200)
    await request(app)
      .post('/api/auth/signout')
      .set('Cookie', cookie)
      .type('form')
      .send({ csrfToken: value })
      .expect(302)
  })
})

describe('GET /error', () => {
  it.each([
    'Signin',
    'OAuthSignin',
    'OAuthCallback',
    'OAuthCreateAccount',
    'EmailCreateAccount',
    'Callback',
    'OAuthAccountNotLinked',
    'EmailSignin',
    'CredentialsSignin',
    'SessionRequired',
  ])('sends %s to the sign-in page', async (code) => {
    const { app } = makeApp()
    const res = await request(app).get(`/api/auth/error?error=${code}`).expect(302)
    expect(res.headers.location).toBe(`http://localhost:3000/api/auth/signin?error=${code}`)
  })

  it.each([
    ['Configuration', 500],
    ['AccessDenied', 403],
    ['Verification', 403],
    ['Default', 200],
    ['Whatever', 200],
  ] as const)('renders %s with status %i', async (code, status) => {
    const { app } = makeApp()
    await request(app).get(`/api/auth/error?error=${code}`).expect(status).expect('Content-Type', /html/)
  })

  it('never echoes the raw error value', async () => {
    const { app } = makeApp()
    const res = await request(app).get('/api/auth/error?error=%3Cscript%3Ealert(1)%3C%2Fscript%3E').expect(200)
    expect(res.text).not.toContain('<script>')
    expect(res.text).not.toContain('alert(1)')
  })

  it("redirects to the app's error page with the query carried over", async () => {
    const { app } = makeApp({ pages: { error: '/oops' } })
    const res = await request(app).get('/api/auth/error?error=AccessDenied').expect(302)
    expect(res.headers.location).toBe('http://localhost:3000/oops?error=AccessDenied')
  })
})
