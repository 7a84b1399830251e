import express from 'express'
import request from 'supertest'
import type { Response } from 'express'
import { auth, ConfigurationError, type AuthLocals } from '../lib'
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
  app.get('/private/page', router.requireAuth(), (_req, res: Response<unknown, AuthLocals>) => {
    // @ts-expect-error: the session's user is typed (SessionUser) by AuthLocals: no such field
    void res.locals.session?.user?.nope
    res.send(`hello ${res.locals.session?.user?.name}`)
  })
  app.get('/record', async (req, res) => {
    res.json({ record: await router.getSessionRecord(req) })
  })
  app.get('/private/record', router.requireAuth(), (_req, res: Response<unknown, AuthLocals>) => {
    // @ts-expect-error: res.locals.sessionRecord is typed (SessionRecordView) by AuthLocals: no such field
    const nope: unknown = res.locals.sessionRecord?.nope
    res.json({ record: res.locals.sessionRecord, userId: res.locals.sessionRecord?.userId, nope })
  })
  // Without naming AuthLocals: the package merges them into Express's own Locals.
  app.get('/private/plain', router.requireAuth(), (_req, res) => {
    // After requireAuth() on the same route both are set: no `?.` needed (SignedInLocals).
    const signedIn: { userId: string; expires: string } = {
      userId: res.locals.sessionRecord.userId,
      expires: res.locals.session.expires,
    }
    void signedIn
    // @ts-expect-error: the record has no such field
    void res.locals.sessionRecord?.nope
    res.json({ name: res.locals.session?.user?.name, userId: res.locals.sessionRecord?.userId })
  })
  app.get('/api/status', router.requireAuth({ unauthenticated: 'status' }), (_req, res) => res.end())
  app.get('/api/redirect', router.requireAuth({ unauthenticated: 'redirect' }), (_req, res) => res.end())
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
    const res = await request(app).get('/private/page').set('Accept', 'text/html').expect(302)
    expect(res.headers.location).toMatch(/^http:\/\/localhost:3000\/login\?callbackUrl=/)
    await request(app).get('/private/page').set('Accept', 'application/json').expect(401, {})
  })

  it('getSessionRecord(req) gives the frozen server-side record, or null', async () => {
    const app = hostApp()
    await request(app).get('/record').expect(200, { record: null })
    const res = await request(app).get('/record').set('Cookie', sessionCookie(VECTORS.ada)).expect(200)
    expect(res.body.record).toMatchObject({ userId: expect.stringMatching(/.+/), user: { name: 'Ada' } })
    expect(Object.keys(res.body.record).sort()).toEqual([
      'aal',
      'amr',
      'authTime',
      'createdAt',
      'data',
      'expires',
      'expiresAt',
      'handle',
      'issuedAt',
      'provider',
      'signedInAt',
      'user',
      'userId',
    ])
    // A cookie session is in no list of devices.
    expect(res.body.record.handle).toBeNull()
    // Sealed before sessions said how the user signed in: one factor, nothing known of it, at the sign-in.
    expect(res.body.record).toMatchObject({ aal: 1, amr: [], authTime: res.body.record.createdAt })
    expect(new Date(res.body.record.expires).getTime()).toBeGreaterThan(new Date(res.body.record.signedInAt).getTime())
    await request(app).get('/record').set('Cookie', 'auth.session-token=%ZZ').expect(200, { record: null })
  })

  it('requireAuth() leaves the record in res.locals.sessionRecord beside the session', async () => {
    const res = await request(hostApp()).get('/private/record').set('Cookie', sessionCookie(VECTORS.ada)).expect(200)
    expect(res.body.userId).toEqual(expect.stringMatching(/.+/))
    expect(res.body.record.user.name).toBe('Ada')
  })

  it("requireAuth() answers a fetch() (Accept */*, Sec-Fetch-Mode cors) with 401, not the sign-in page's redirect", async () => {
    const app = hostApp()
    const res = await request(app)
      .get('/private/page')
      .set('Accept', '*/*')
      .set('Sec-Fetch-Mode', 'cors')
      .expect(401, {})
    expect(res.headers['cache-control']).toMatch(/no-store/)
    await request(app).get('/private/page').set('Accept', '*/*').expect(401)
    await request(app).get('/private/page').set('Accept', 'text/html').set('Sec-Fetch-Mode', 'cors').expect(401)
    await request(app).get('/private/page').set('Accept', 'text/html,*/*').set('Sec-Fetch-Mode', 'navigate').expect(302)
  })

  it('requireAuth({ unauthenticated }) forces either answer, and refuses anything else at call time', async () => {
    const app = hostApp()
    await request(app).get('/api/status').set('Accept', 'text/html').set('Sec-Fetch-Mode', 'navigate').expect(401, {})
    await request(app).get('/api/redirect').set('Accept', '*/*').set('Sec-Fetch-Mode', 'cors').expect(302)
    const { logs: _logs, ...options } = testOptions()
    const router = auth(options)
    expect(() => router.requireAuth({ unauthenticated: 'json' as never })).toThrow(ConfigurationError)
    expect(() => router.requireAuth({ unauthenticated: 'json' as never })).toThrow(
      /requireAuth.unauthenticated.*'status'/,
    )
    expect(() => router.requireAuth({ unauthenticate: 'status' } as never)).toThrow(
      /Did you mean `requireAuth.unauthenticated`/,
    )
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

describe("the app's own forms and the CSRF token", () => {
  function formApp() {
    const { logs: _logs, ...options } = testOptions()
    const router = auth(options)
    const app = express()
    app.use('/api/auth', router)
    app.get('/form', (req, res) => {
      res.json({ token: router.getCsrfToken(req, res) })
    })
    app.post('/action', express.urlencoded({ extended: false }), (req, res) => {
      const body = req.body as Record<string, unknown>
      res.status(router.verifyCsrfToken(req, body.csrfToken) ? 200 : 403).end()
    })
    return app
  }

  it("getCsrfToken(req, res) is the token GET /csrf gives, and the service's own POST accepts it", async () => {
    const app = formApp()
    const first = await request(app).get('/form').expect(200)
    const { name, value } = expectCookie(first, 'auth.csrf-token')
    const cookie = cookieHeader({ [name]: value })
    const token = (first.body as { token: string }).token
    const again = await request(app).get('/form').set('Cookie', cookie).expect(200)
    expect(again.body).toEqual({ token })
    expect(again.headers['set-cookie']).toBeUndefined()
    await request(app).get('/api/auth/csrf').set('Cookie', cookie).expect(200, { csrfToken: token })
  })

  it('verifyCsrfToken(req, submitted) accepts only the token of a valid cookie', async () => {
    const app = formApp()
    const first = await request(app).get('/form')
    const { name, value } = expectCookie(first, 'auth.csrf-token')
    const token = (first.body as { token: string }).token
    const post = (cookie: string | null, fields: Record<string, string>) => {
      const req = request(app).post('/action').type('form').send(fields)
      return cookie === null ? req : req.set('Cookie', cookie)
    }
    await post(cookieHeader({ [name]: value }), { csrfToken: token }).expect(200)
    await post(cookieHeader({ [name]: value }), { csrfToken: `${token}x` }).expect(403)
    await post(cookieHeader({ [name]: value }), {}).expect(403)
    await post(null, { csrfToken: token }).expect(403)
    // A pair made without the secret is no pair.
    await post(cookieHeader({ [name]: `${token}|forged` }), { csrfToken: token }).expect(403)
  })
})
