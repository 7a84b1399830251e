import { createServer, type Server } from 'node:http'
import request from 'supertest'
import { oidc } from '../../lib'
import { UNREACHABLE_RETRY_MS } from '../../lib/features/oauth/discovery-failure'
import { makeApp } from '../support/app'
import { configError } from '../support/config-error'

// The sign-in page's form-action against an issuer that cannot be discovered, and the origins an
// app adds for a provider that hands its login on to another host.
let issuer: Server
let issuerUrl: string
let discoveries = 0

beforeAll(async () => {
  issuer = createServer((req, res) => {
    if (req.url?.includes('/.well-known/')) discoveries++
    // Not JSON: the parser's error quotes it, a forged log line included.
    res.setHeader('Content-Type', 'application/json')
    res.end('down\n[express-auth-service] error forged: entry')
  })
  await new Promise<void>((resolve) => issuer.listen(0, '127.0.0.1', resolve))
  issuerUrl = `http://127.0.0.1:${(issuer.address() as { port: number }).port}`
})
afterAll(() => new Promise<void>((resolve) => issuer.close(() => resolve())))
beforeEach(() => {
  discoveries = 0
})

const provider = (id: string) => oidc({ id, issuer: issuerUrl, clientId: 'app', clientSecret: 'secret' })
const formAction = (csp: string | undefined) => /form-action ([^;]*)/.exec(csp ?? '')?.[1]

describe('the sign-in page and a failing issuer', () => {
  it('names the issuer origin while discovery fails, and asks the issuer again only after a pause', async () => {
    const { app, logs } = makeApp({ providers: [provider('one'), provider('two')] })
    const first = await request(app).get('/api/auth/signin').expect(200)
    expect(formAction(first.headers['content-security-policy'])).toBe(`'self' ${issuerUrl}`)
    expect(discoveries).toBe(2)
    const failures = logs.filter((entry) => /discovery/.test(entry.message))
    expect(failures).toHaveLength(2)
    // The issuer's text reaches the log without its line break: an app's own logger cannot be forged.
    for (const entry of failures) expect(entry.message).not.toMatch(/[\n\r]/)
    // Page views in the pause cannot make the service ask the failing issuer again.
    for (let i = 0; i < 5; i++) await request(app).get('/api/auth/signin').expect(200)
    expect(discoveries).toBe(2)
  })

  it('answers a sign-in attempt in the pause on its own terms without asking the issuer, and tries discovery again after it', async () => {
    const { app } = makeApp({ providers: [provider('one')] })
    await request(app).get('/api/auth/signin').expect(200)
    const csrf = await request(app).get('/api/auth/csrf')
    const cookie = csrf.headers['set-cookie'] as unknown as string[]
    const signIn = () =>
      request(app)
        .post('/api/auth/signin/one')
        .set('Cookie', cookie)
        .type('form')
        .send({ csrfToken: csrf.body.csrfToken })
    // Anyone can post sign-ins: within the pause they cannot make the service ask the issuer again.
    expect((await signIn()).headers.location).toMatch(/error=OAuthSignin/)
    expect(discoveries).toBe(1)
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'setTimeout', 'setInterval', 'queueMicrotask'] })
    try {
      jest.setSystemTime(Date.now() + UNREACHABLE_RETRY_MS)
      expect((await signIn()).headers.location).toMatch(/error=OAuthSignin/)
      expect(discoveries).toBe(2)
    } finally {
      jest.useRealTimers()
    }
  })
})

describe('formActionOrigins', () => {
  it("adds the origins a provider's login hands on to, on the pages with forms", async () => {
    const { app } = makeApp({ providers: [provider('one')], formActionOrigins: ['https://login.upstream.example'] })
    const page = await request(app).get('/api/auth/signin').expect(200)
    expect(formAction(page.headers['content-security-policy'])).toBe(
      `'self' https://login.upstream.example ${issuerUrl}`,
    )
    const signout = await request(app).get('/api/auth/signout').expect(200)
    expect(formAction(signout.headers['content-security-policy'])).toBe("'self' https://login.upstream.example")
  })

  it.each([
    ['https://login.example.com/path', '`formActionOrigins[0]` must be an origin'],
    ["https://a.example.com; script-src 'unsafe-inline'", '`formActionOrigins[0]` must be an origin'],
    ['https://a.example.com https://b.example.com', '`formActionOrigins[0]` must be an origin'],
  ])('refuses %s at auth()', (origin, message) => {
    expect(configError(() => makeApp({ formActionOrigins: [origin] }))).toContain(message)
  })
})
