import express from 'express'
import request from 'supertest'
import { auth, type Session } from '../lib'
import { testOptions } from './support/app'
import { clockAt } from './support/clock'
import { cookieHeader, expectCookie } from './support/cookies'
import { VALID_AT, VECTORS, sessionCookie } from './support/sessions'

clockAt(VALID_AT)

function hostApp(overrides = {}) {
  const { logs: _logs, ...options } = testOptions(overrides)
  const router = auth(options)
  const app = express()
  app.use('/api/auth', router)
  app.get('/whoami', async (req, res) => {
    res.json({ session: await router.getSession(req) })
  })
  app.get('/private/page', router.requireAuth(), (_req, res) => {
    res.send(`hello ${(res.locals.session as Session).user?.name}`)
  })
  return app
}

describe("the host app's helpers", () => {
  it('getSession(req) gives the session object, or null', async () => {
    const app = hostApp()
    await request(app).get('/whoami').expect(200, { session: null })
    const res = await request(app).get('/whoami').set('Cookie', sessionCookie(VECTORS.ada)).expect(200)
    expect(res.body.session.user.name).toBe('Ada')
    const bad = await request(app).get('/whoami').set('Cookie', 'auth.session-token=%ZZ').expect(200)
    expect(bad.body).toEqual({ session: null })
  })

  it('requireAuth() lets a signed-in user through with res.locals.session', async () => {
    const app = hostApp()
    await request(app).get('/private/page').set('Cookie', sessionCookie(VECTORS.ada)).expect(200, 'hello Ada')
  })

  it('requireAuth() sends a page request to the sign-in page with callbackUrl and SessionRequired', async () => {
    const res = await request(hostApp()).get('/private/page?x=1').set('Accept', 'text/html').expect(302)
    const location = new URL(res.headers.location!)
    expect(location.origin + location.pathname).toBe('http://localhost:3000/api/auth/signin')
    expect(location.searchParams.get('callbackUrl')).toBe('http://localhost:3000/private/page?x=1')
    expect(location.searchParams.get('error')).toBe('SessionRequired')
  })

  it('requireAuth() honours pages.signIn and answers 401 {} to JSON clients', async () => {
    const app = hostApp({ pages: { signIn: '/login' } })
    const res = await request(app).get('/private/page').expect(302)
    expect(res.headers.location).toMatch(/^http:\/\/localhost:3000\/login\?callbackUrl=/)
    await request(app).get('/private/page').set('Accept', 'application/json').expect(401, {})
  })
})

describe('the request is left as it was', () => {
  it('a host cookie-parser with a secret that runs after the service still parses its signed cookies', async () => {
    const cookieParser = (await import('cookie-parser')).default
    const { logs, ...options } = testOptions()
    const router = auth(options)
    const app = express()
    app.use('/api/auth', router)
    app.get('/signed', router.requireAuth(), cookieParser('host-secret'), (req, res) => {
      res.json({ signed: req.signedCookies })
    })
    app.get('/set', cookieParser('host-secret'), (_req, res) => {
      res.cookie('pref', 'dark', { signed: true }).end()
    })
    const { name, value } = expectCookie(await request(app).get('/set'), 'pref')
    const res = await request(app)
      .get('/signed')
      .set('Cookie', `${cookieHeader({ [name]: value })}; ${sessionCookie(VECTORS.ada)}`)
      .expect(200)
    expect(res.body).toEqual({ signed: { pref: 'dark' } })
    // No entry but the set-up warnings (no providers; supertest's Host is not `url`'s).
    expect(logs.filter((entry) => entry.event !== 'config.warning')).toEqual([])
  })
})
