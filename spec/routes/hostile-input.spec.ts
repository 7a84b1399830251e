import express from 'express'
import request from 'supertest'
import { auth, oauth2 } from '../../lib'
import { BASE, makeApp, SECRET } from '../support/app'
import { CookieJar } from '../support/cookie-jar'
import { cookieHeader, expectCookie, findCookie, isCleared, setCookieLines, setCookies } from '../support/cookies'
import { csrfPair } from '../support/csrf'
import { rawExchange } from '../support/raw-http'

/** Hostile input from an outside attacker: every answer is a 4xx or a normal page, never a 5xx, and the process lives. */

const ROUTES: ReadonlyArray<readonly ['get' | 'post', string]> = [
  ['get', 'csrf'],
  ['get', 'providers'],
  ['get', 'session'],
  ['get', 'signin'],
  ['get', 'signout'],
  ['get', 'verify-request'],
  ['get', 'error?error=AccessDenied'],
  ['get', 'assets/style.css'],
  ['get', 'callback/stub?code=x&state=y'],
  ['post', 'signin/stub'],
  ['post', 'signout'],
  ['post', 'session'],
  ['post', '_log'],
]

const stub = oauth2({
  id: 'stub',
  clientId: 'c',
  clientSecret: 's',
  authorizationUrl: 'https://idp.example/authorize',
  tokenUrl: 'https://idp.example/token',
})

describe('with trustHost, a malformed Host', () => {
  const rejections: unknown[] = []
  const onRejection = (reason: unknown) => rejections.push(reason)
  beforeAll(() => process.on('unhandledRejection', onRejection))
  afterAll(() => process.off('unhandledRejection', onRejection))

  function hostApp() {
    const router = auth({ secret: SECRET, trustHost: true, providers: [stub], logger: false })
    const app = express()
    app.use('/api/auth', router)
    app.get('/private', router.requireAuth(), (_req, res) => {
      res.send('private')
    })
    app.get('/whoami', (req, res, next) => {
      router.getSession(req).then((session) => res.json(session), next)
    })
    return app
  }

  it.each([
    '999.999.999.999',
    'a.b:70000',
    '[1:2:3]',
    'a.b:0',
    'a.b:+80',
    'a..b',
    '-a.example',
    'a_b.example',
    '1.2.3',
    '0x7f',
    'exa mple.com',
    '[::1',
    'a.b:80:80',
    `${'a'.repeat(64)}.example`,
    'a.b:',
    '',
  ])('%j answers 400 on every route and on a requireAuth() page, and nothing rejects unhandled', async (host) => {
    const app = hostApp()
    for (const [method, path] of ROUTES) {
      const res = await request(app)[method](`/api/auth/${path}`).set('Host', host)
      expect([path, res.status]).toEqual([path, 400])
    }
    await request(app).get('/private').set('Host', host).expect(400)
    if (host !== '')
      await request(app).get('/private').set('X-Forwarded-Host', host).set('Host', 'localhost').expect(400)
    // A forwarded list: its first item is the client's own, whatever the proxy appended.
    await request(app).get('/api/auth/providers').set('X-Forwarded-Host', 'evil.example, localhost').expect(400)
    // The host app's own use of getSession: no session, not an exception.
    await request(app).get('/whoami').set('Host', host).expect(200, 'null')
    await new Promise((resolve) => setImmediate(resolve))
    expect(rejections).toEqual([])
  })

  it('sends an absolute-form request line (GET http://other.example/…) to the sign-in page with the origin as callbackUrl', async () => {
    const server = hostApp().listen(0, '127.0.0.1')
    try {
      await new Promise((resolve) => server.once('listening', resolve))
      const { port } = server.address() as { port: number }
      const answer = await rawExchange(
        port,
        `GET http://other.example/private HTTP/1.1\r\nHost: localhost:${port}\r\nAccept: text/html\r\nConnection: close\r\n\r\n`,
      )
      const location = /\r\nlocation: (\S+)\r\n/i.exec(answer)?.[1]
      expect(location).toBeDefined()
      expect(new URL(location!).searchParams.get('callbackUrl')).toBe(`http://localhost:${port}/`)
    } finally {
      server.close()
    }
  })

  it('accepts well-formed hosts, IPv6 included, and builds its URLs from them', async () => {
    const app = hostApp()
    for (const [host, origin] of [
      ['localhost:3000', 'http://localhost:3000'],
      ['Example.COM', 'http://example.com'],
      ['[::1]:8080', 'http://[::1]:8080'],
      ['127.0.0.1', 'http://127.0.0.1'],
      ['xn--bcher-kva.example:443', 'http://xn--bcher-kva.example:443'],
    ]) {
      const res = await request(app).get('/api/auth/providers').set('Host', host!).expect(200)
      expect(res.body.stub.signinUrl).toBe(`${origin}/api/auth/signin/stub`)
    }
    const https = await request(app)
      .get('/api/auth/providers')
      .set('X-Forwarded-Host', 'example.com:443')
      .set('X-Forwarded-Proto', 'https')
      .expect(200)
    expect(https.body.stub.signinUrl).toBe('https://example.com/api/auth/signin/stub')
  })
})

describe('request paths', () => {
  it('normalises a long run of slashes in linear time (no backtracking regular expression)', async () => {
    const { app } = makeApp()
    await request(app)
      .get(`/api/auth/a${'/'.repeat(16_000)}b`)
      .expect(404)
    await request(app)
      .get(`/api/auth/${'/'.repeat(16_000)}csrf${'/'.repeat(100)}`)
      .expect(200)
  })
})

describe('request strings never reach a prototype', () => {
  const KEYS = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']

  it.each(KEYS)(
    '%s as an error code, a route, a provider, a level or a form field gets an ordinary answer',
    async (key) => {
      const { app, logs } = makeApp({ providers: [stub] })
      await request(app).get(`/api/auth/error?error=${key}`).expect(200).expect('Content-Type', /html/)
      await request(app).get(`/api/auth/signin?error=${key}`).expect(200)
      await request(app).get(`/api/auth/${key}`).expect(404)
      await request(app).get(`/api/auth/callback/${key}`).expect(404)
      const { token, cookie } = await csrfPair(app)
      await request(app)
        .post(`/api/auth/signin/${key}`)
        .set('Cookie', cookie)
        .type('form')
        .send({ csrfToken: token })
        .expect(404)
      await request(app).post('/api/auth/_log').type('form').send({ level: key, code: 'X' }).expect(400)
      expect(logs.find((entry) => entry.event === 'client.log')).toBeUndefined()
      // A form field named like a prototype member is a field like any other.
      const res = await request(app)
        .post('/api/auth/signout')
        .set('Cookie', cookie)
        .type('form')
        .send(`${key}=x&csrfToken=${token}&callbackUrl=/after`)
        .expect(302)
      expect(res.headers.location).toBe('http://localhost:3000/after')
    },
  )
})

describe('POST /_log, the client log beacon', () => {
  it("logs at most warn, tags the entry as the client's, and keeps only short strings", async () => {
    const { app, logs: all } = makeApp()
    await request(app)
      .post('/api/auth/_log')
      .type('form')
      .send({ level: 'error', code: 'CLIENT_FETCH_ERROR', message: 'm'.repeat(2000) })
      .expect(200, '')
    await request(app)
      .post('/api/auth/_log')
      .type('form')
      .send({ level: 'debug', code: 'X', extra: 'ignored' })
      .expect(200)
    const logs = all.filter((entry) => entry.event === 'client.log')
    expect(logs[0]).toMatchObject({ level: 'warn', event: 'client.log', source: 'client', code: 'CLIENT_FETCH_ERROR' })
    expect((logs[0]!.clientMessage as string).length).toBe(500)
    expect(logs[1]).toMatchObject({ level: 'debug', source: 'client', code: 'X' })
    expect(logs[1]).not.toHaveProperty('extra')
    expect(logs).toHaveLength(2)
    expect(all.some((entry) => entry.level === 'error')).toBe(false)
  })

  it.each([['fatal; rm -rf'], ['info'], ['constructor'], [''], ['x'.repeat(3000)]])(
    "refuses the level %j with 400 and logs nothing (only error, warn and debug are the client's)",
    async (level) => {
      const { app, logs } = makeApp()
      await request(app).post('/api/auth/_log').type('form').send({ level, code: 'X' }).expect(400)
      await request(app)
        .post('/api/auth/_log')
        .send({ level: ['warn'], code: 'X' })
        .expect(400)
      await request(app).post('/api/auth/_log').type('form').send({ code: 'X' }).expect(400)
      expect(logs.filter((entry) => entry.event === 'client.log')).toEqual([])
    },
  )

  it('refuses a body over 4 KB', async () => {
    const { app, logs } = makeApp()
    await request(app)
      .post('/api/auth/_log')
      .type('form')
      .send({ level: 'warn', message: 'm'.repeat(5000) })
      .expect(413)
    expect(logs.filter((entry) => entry.event === 'client.log')).toEqual([])
  })

  it('takes 30 entries a minute from one client IP, then answers 429 with Retry-After and logs nothing more', async () => {
    const { app, logs } = makeApp()
    for (let i = 0; i < 30; i++)
      await request(app)
        .post('/api/auth/_log')
        .type('form')
        .send({ level: 'warn', code: `n${i}` })
        .expect(200)
    const refused = await request(app)
      .post('/api/auth/_log')
      .type('form')
      .send({ level: 'warn', code: 'over' })
      .expect(429)
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0)
    expect(logs.filter((entry) => entry.event === 'client.log')).toHaveLength(30)
  })
})

describe('flow cookies', () => {
  const signInWith = async (app: express.Express, callbackUrl: string, cookies: string) => {
    const { token, cookie } = await csrfPair(app)
    return request(app)
      .post('/api/auth/signin/stub')
      .set('Cookie', [cookie, cookies].filter(Boolean).join('; '))
      .type('form')
      .send({ csrfToken: token, callbackUrl })
  }
  const flowCookie = (res: request.Response) =>
    setCookies(res).find((c) => c.name.startsWith('auth.flow.') && c.value !== '')!

  it('counts callbackUrl in its stored (percent-encoded) form: a URL that grows past 2048 characters is replaced by the origin', async () => {
    const { app } = makeApp({ providers: [stub] })
    const res = await signInWith(app, `/${'é'.repeat(1000)}`, '').then((r) => r)
    expect(res.status).toBe(302)
    expect(flowCookie(res).value.length).toBeLessThan(1000)
  })

  it('keeps all flow cookies together under 4 KB, dropping the oldest, however long their callbackUrls', async () => {
    const { app } = makeApp({ providers: [stub] })
    const jar = new CookieJar()
    const flowCookies = () => jar.all(BASE).filter((c) => c.name.startsWith('auth.flow.'))
    for (let i = 0; i < 5; i++) {
      const res = await signInWith(
        app,
        `/${String(i).repeat(2000)}`,
        cookieHeader(Object.fromEntries(flowCookies().map((c) => [c.name, c.value]))),
      )
      expect(res.status).toBe(302)
      for (const line of setCookieLines(res)) jar.set(BASE, line)
      const total = flowCookies().reduce((sum, c) => sum + c.name.length + c.value.length + 1, 0)
      expect(total).toBeLessThanOrEqual(4096)
    }
    expect(flowCookies().length).toBeGreaterThanOrEqual(1)
  })

  it('clears at most a few made-up flow cookies per response', async () => {
    const { app } = makeApp({ providers: [stub] })
    const junk = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`auth.flow.j${i}`, 'x']))
    const res = await signInWith(app, '/', cookieHeader(junk))
    expect(res.status).toBe(302)
    expect(setCookies(res).length).toBeLessThanOrEqual(10)
  })
})

describe('session cookie chunks', () => {
  it('clears only the chunks that can exist, however many made-up ones arrive', async () => {
    const { app } = makeApp()
    const junk = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`auth.session-token.${i}`, 'junk']))
    const res = await request(app).get('/api/auth/session').set('Cookie', cookieHeader(junk)).expect(200, {})
    const cleared = setCookies(res)
    expect(cleared.length).toBeGreaterThan(0)
    expect(cleared.length).toBeLessThanOrEqual(17)
    expect(cleared.every(isCleared)).toBe(true)
  })
})

describe('CSRF cookies after a secret rotation', () => {
  it('re-signs a cookie made under a rotated-out secret with the current one, keeping its token', async () => {
    const oldSecret = SECRET
    const newSecret = 'n'.repeat(40)
    const before = makeApp({ secret: oldSecret }).app
    const { token, cookie, value } = await csrfPair(before)
    const rotated = makeApp({ secret: [newSecret, oldSecret] }).app
    const res = await request(rotated).get('/api/auth/csrf').set('Cookie', cookie).expect(200)
    expect(res.body.csrfToken).toBe(token)
    const resigned = expectCookie(res, 'auth.csrf-token')
    expect(resigned.value).not.toBe(value)
    // Once the old secret is gone, the re-signed cookie still works.
    const after = makeApp({ secret: newSecret }).app
    const signedOut = await request(after)
      .post('/api/auth/signout')
      .set('Cookie', `auth.csrf-token=${resigned.value}`)
      .type('form')
      .send({ csrfToken: token })
      .expect(302)
    expect(signedOut.headers.location).not.toMatch(/csrf=true/)
    // A cookie under the current secret is left alone.
    const current = await request(after).get('/api/auth/csrf').set('Cookie', `auth.csrf-token=${resigned.value}`)
    expect(findCookie(current, 'auth.csrf-token')).toBeUndefined()
  })
})

describe('X-Content-Type-Options: nosniff', () => {
  it('is on every response the package writes: JSON, pages, the stylesheet (200 and 304), redirects, empty answers, errors', async () => {
    const { app } = makeApp({ providers: [stub] })
    const { token, cookie } = await csrfPair(app)
    const style = await request(app).get('/api/auth/assets/style.css')
    const answers = [
      await request(app).get('/api/auth/session'),
      await request(app).get('/api/auth/csrf'),
      await request(app).get('/api/auth/providers'),
      await request(app).get('/api/auth/signin'),
      await request(app).get('/api/auth/error?error=Configuration'),
      await request(app).get('/api/auth/error?error=Signin'),
      style,
      await request(app).get('/api/auth/assets/style.css').set('If-None-Match', String(style.headers.etag)),
      await request(app).post('/api/auth/signin/stub').set('Cookie', cookie).type('form').send({ csrfToken: token }),
      await request(app).post('/api/auth/signout').type('form').send({}),
      await request(app).post('/api/auth/session').type('json').send({}),
      await request(app).post('/api/auth/_log').type('form').send({}),
      await request(app).get('/api/auth/nope'),
      await request(app).delete('/api/auth/session'),
    ]
    expect(answers.map((res) => [res.status, res.headers['x-content-type-options']])).toEqual(
      answers.map((res) => [res.status, 'nosniff']),
    )
  })
})

describe('the service URL', () => {
  it('comes from `url`, never from Host or X-Forwarded-Host, when trustHost is off', async () => {
    const { app } = makeApp({ providers: [stub] })
    const res = await request(app)
      .get('/api/auth/providers')
      .set('Host', 'evil.example')
      .set('X-Forwarded-Host', 'evil.example')
      .expect(200)
    expect(res.body.stub.callbackUrl).toBe(`${BASE}/callback/stub`)
  })

  it('comes from `url` even with trustHost on: the redirect_uri a provider is sent cannot be steered', async () => {
    const { app } = makeApp({ providers: [stub], trustHost: true })
    const headers = { Host: 'evil.example', 'X-Forwarded-Host': 'evil.example', 'X-Forwarded-Proto': 'https' }
    const listed = await request(app).get('/api/auth/providers').set(headers).expect(200)
    expect(listed.body.stub.callbackUrl).toBe(`${BASE}/callback/stub`)
    const { token, cookie } = await csrfPair(app)
    const started = await request(app)
      .post('/api/auth/signin/stub')
      .set(headers)
      .set('Cookie', cookie)
      .type('form')
      .send({ csrfToken: token })
      .expect(302)
    expect(new URL(started.headers.location as string).searchParams.get('redirect_uri')).toBe(`${BASE}/callback/stub`)
  })
})
