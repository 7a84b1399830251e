/**
 * Attack on issue 30's fixes, as an outsider would (spec/security/attack-30.spec.ts). Each `it`
 * names what it proves. Findings that still break are `it.failing`: the spec asserts what should
 * hold, jest reports it as passing while the defect is there; the lead's fix makes it fail, and
 * then `.failing` comes off. Checks that held are plain `it`.
 */
import { createServer, request as httpRequest, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Request } from 'express'
import { auth, oauth2, oidc, type AuthOptions } from '../../lib'
import { isCssColor } from '../../lib/infra/config/theme'
import { makeApp, serve, testOptions } from '../support/app'
import { Browser } from '../support/browser'
import { configError } from '../support/config-error'
import { restoreClock, setClock, useClock } from '../support/clock'
import { SoftAuthenticator } from '../support/soft-authenticator'
import {
  askOptions,
  postAnswer,
  registerPasskey,
  signInByEmail,
  startPasskeyService,
  type PasskeyService,
} from '../support/passkey-harness'

const T = 1_900_000_000
const added: unknown[] = []
let service: PasskeyService

beforeAll(async () => {
  service = await startPasskeyService({}, { events: { passkeyAdded: (message) => void added.push(message) } })
})
afterAll(() => service.close())
beforeEach(() => {
  added.length = 0
  useClock(T)
})
afterEach(restoreClock)

describe('passkey registration needs a recent sign-in (defect 2)', () => {
  // FINDING A30-1 (Medium): with cookie sessions, `POST /signout` with `others=true` writes this
  // browser a new session through manager.start(), dated now (createdAt = revocations.stamp()).
  // A session cookie copied hours ago therefore becomes "recently signed in" by signing out the
  // user's other sessions, and plants a passkey: the very theft defect 2 closes. It also signs the
  // real user out everywhere else. Fixed: `revokeOthers` keeps the sign-in time (auth_time).
  it('a copied old cookie session cannot freshen its sign-in time with sign-out of the other sessions', async () => {
    const victim = new Browser(service)
    await signInByEmail(service, victim, 'victim@example.com')
    setClock(T + 3600)
    const thief = new Browser(service)
    const cookie = victim.cookie('auth.session-token')!
    thief.jar.set(service.origin, `${cookie.name}=${cookie.value}; Path=/; HttpOnly; SameSite=Lax`)
    expect((await askOptions(service, thief, { action: 'register' })).status).toBe(401)

    const out = await thief.signOut({ others: 'true' })
    expect(out.status).toBe(302)
    // Still signed in (the others are out), but no more recently than before.
    expect(await thief.session()).toHaveProperty('user')
    // Before the fix the options answer 200 and the thief's authenticator is kept.
    await registerPasskey(service, thief, new SoftAuthenticator(service.origin)).catch(() => null)
    expect(await service.router.listPasskeys('email:victim@example.com')).toEqual([])
    expect(added).toEqual([])
  })

  // The same mechanism (FINDING A30-1) also defeats `session.maxLifetime`: the absolute bound
  // counted from the sign-in. A copied cookie that signs out "the others" before each maxAge runs
  // out lived for ever (docs/session-stores.md said the new session's sign-in time was now).
  it('a copied cookie session cannot outlive session.maxLifetime by signing out the others', async () => {
    const short = await startPasskeyService({}, { session: { maxAge: 3600, maxLifetime: 7200 } })
    try {
      const thief = new Browser(short)
      await signInByEmail(short, thief, 'forever@example.com')
      for (const at of [3000, 6000, 9000]) {
        setClock(T + at)
        await thief.signOut({ others: 'true' })
        // Within the lifetime the re-issued session stays signed in.
        if (at < 7200) expect(await thief.session()).toHaveProperty('user')
      }
      setClock(T + 9100)
      expect(await thief.session()).not.toHaveProperty('user')
    } finally {
      await short.close()
    }
  })

  it('held: the same thief without the sign-out trick is refused at options and at the answer', async () => {
    const victim = new Browser(service)
    await signInByEmail(service, victim, 'held@example.com')
    setClock(T + 3600)
    expect((await askOptions(service, victim, { action: 'register' })).status).toBe(401)
    // A fake answer skipping the options route: no ceremony cookie, refused as 400.
    const posted = await postAnswer(service, victim, 'register', { id: 'x' })
    expect(posted.session).toBe(false)
    expect(await service.router.listPasskeys('email:held@example.com')).toEqual([])
    expect(added).toEqual([])
  })

  it('held: POST /session (update) keeps the sign-in time', async () => {
    const browser = new Browser(service)
    await signInByEmail(service, browser, 'update@example.com')
    setClock(T + 3600)
    const res = await browser.jar.fetch(`${service.base}/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ csrfToken: await browser.csrfToken(), data: {} }),
    })
    expect(res.status).toBeLessThan(500)
    expect((await askOptions(service, browser, { action: 'register' })).status).toBe(401)
    await expect(registerPasskey(service, browser, new SoftAuthenticator(service.origin))).rejects.toThrow(/401/)
  })
})

describe('the 401 SessionRequired answer is no open redirect (defect 2)', () => {
  it('held: an off-site or javascript: callbackUrl comes back as the site itself', async () => {
    const browser = new Browser(service)
    await signInByEmail(service, browser, 'redirect@example.com')
    setClock(T + 3600)
    for (const callbackUrl of ['https://evil.example/', '//evil.example/x', 'javascript:alert(1)', '/\\evil.example']) {
      const asked = await askOptions(service, browser, { action: 'register', callbackUrl })
      expect(asked.status).toBe(401)
      const url = new URL((asked.body as { url: string }).url)
      expect(url.origin).toBe(service.origin)
      expect(new URL(url.searchParams.get('callbackUrl')!, service.origin).origin).toBe(service.origin)
    }
  })
})

describe('theme values cannot carry CSS, HTML or a CSP directive (defect 5)', () => {
  const start = (theme: unknown) => {
    const { logs: _logs, ...options } = testOptions({ theme: theme as AuthOptions['theme'] })
    return auth(options)
  }
  it('held: hostile colours are not colours', () => {
    for (const value of [
      'red;}body{background:url(https://evil.example/x)',
      'rgb(0 0 0) !important',
      'rgb(0 0 0));--x:(',
      'rgb(var(--x))',
      'red\\;',
      '#fff/**/',
      'rgb(0 0 0\n}\nbody{x:y)',
      'expression(alert(1))',
    ])
      expect(isCssColor(value.trim())).toBe(false)
    expect(configError(() => start({ brandColor: 'red;}body{color:red' }))).toMatch(/theme\.brandColor/)
    expect(configError(() => start({ buttonText: 'white</style>' }))).toMatch(/theme\.buttonText/)
  })
  it('held: hostile logos fail at auth()', () => {
    for (const logo of [
      'javascript:alert(1)',
      'JaVaScRiPt:alert(1)',
      'data:image/svg+xml,<svg onload=alert(1)>',
      'http://example.com/logo.png',
      '//evil.example/logo.png',
      'https://evil.example;script-src *',
      'https://a.example,b.example/x',
      'https://user:pw@example.com/logo.png',
      '/logo.png" onerror="alert(1)',
      '/\\evil.example/logo.png',
    ])
      expect(configError(() => start({ logo }))).toMatch(/theme\.logo/)
  })
})

describe('discovery failures are logged once (defect 4)', () => {
  // FINDING A30-2 (Low): "logged once" is keyed on the whole message, which quotes the issuer's
  // answer; and POST /signin/:provider calls runtime.discovered(), which has no back-off
  // (only awaitDiscovery has). An issuer whose discovery names a different `issuer` each time
  // (hostile, or a misrouted load balancer with per-node hosts) gets one outgoing fetch and one
  // `provider.discovery_failed` error entry per sign-in POST, which any visitor can send: log
  // flooding and request amplification toward the issuer. With a constant wrong issuer the log holds
  // (one entry) but the fetches do not: 10 sign-in POSTs, 10 discovery requests, though a
  // 'configuration' failure is one "no retry helps". The spec asserts what the fix should
  // give: one entry and one fetch within DISCOVERY_BACKOFF_MS (30 s).
  let issuer: Server
  let fetches = 0
  afterAll(() => new Promise<void>((resolve) => issuer.close(() => resolve())))
  it('an issuer answering a different wrong issuer each time is fetched and logged once per back-off', async () => {
    restoreClock()
    issuer = createServer((req, res) => {
      fetches++
      const origin = `http://127.0.0.1:${(issuer.address() as AddressInfo).port}`
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(
        JSON.stringify({
          issuer: `${origin}/n${fetches}`,
          authorization_endpoint: `${origin}/a`,
          token_endpoint: `${origin}/t`,
          jwks_uri: `${origin}/j`,
        }),
      )
    })
    await new Promise<void>((resolve) => issuer.listen(0, '127.0.0.1', resolve))
    const url = `http://127.0.0.1:${(issuer.address() as AddressInfo).port}`
    const app = await serve({ providers: [oidc({ id: 'corp', issuer: url, clientId: 'app', clientSecret: 's' })] })
    try {
      const browser = new Browser(app)
      for (let i = 0; i < 10; i++) await browser.startSignIn('corp')
      const logged = app.logs.filter((entry) => entry.event === 'provider.discovery_failed')
      expect({ fetches, logged: logged.length }).toEqual({ fetches: 1, logged: 1 })
    } finally {
      await app.close()
    }
  })
})

describe("getAccessToken's TypeErrors (defect: the second day's silent answers)", () => {
  // FINDING A30-4 (Low): the TypeError for an unknown provider id quotes the id as given, only cut
  // to 64 characters: line breaks and bidi controls kept. An app that takes the id from the URL
  // (`/api/token/:provider`, as the package's own spec route does) and logs `error.message` gets a
  // forged line in its log; house rule: outside text is escaped like every other. The spec
  // asserts the escaping the fix should give.
  it('an unknown provider id from the request is escaped in the error message', async () => {
    const { router } = makeApp({
      providers: [
        oauth2({
          id: 'plain',
          clientId: 'c',
          clientSecret: 's',
          authorizationUrl: 'https://idp.example/authorize',
          tokenUrl: 'https://idp.example/token',
          profile: () => ({ id: 'a' }),
          tokens: true,
        }),
      ],
    })
    const hostile = 'x\n[express-auth-service] error session.created: signed in \u202e'
    const error = await router.getAccessToken({} as Request, hostile).then(
      () => null,
      (caught: unknown) => caught,
    )
    expect(error).toBeInstanceOf(TypeError)
    expect((error as Error).message).not.toMatch(/[\n\r\u2028\u2029\u202a-\u202e]/)
  })
})

describe('outside header values in log entries (defect 4)', () => {
  // FINDING A30-5 (Low): `request.cross_site` logs the request's Origin header (and Sec-Fetch-Site)
  // as fields cut to 200/32 characters but not escaped. Node's parser lets obs-text through (bytes
  // 0x80-0xFF, read as latin1), so a visitor's POST puts C1 controls such as U+0085 (NEL, a line
  // break to many log viewers and to Java/.NET log readers) into the entry the app's own logger
  // receives; the default logger escapes them, an app's logger (pino, a text formatter) does not
  // get outsideText's promise ("no line break reaches any logger, the app's own included").
  it('a cross-site POST with C1 controls in Origin logs them escaped', async () => {
    const app = await serve({})
    try {
      const port = new URL(app.origin).port
      const status = await new Promise<number>((resolve, reject) => {
        const req = httpRequest(
          {
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: '/api/auth/signout',
            headers: {
              host: new URL(app.origin).host,
              origin: 'https://evil.example\x85[express-auth-service] error session.created: forged',
              'sec-fetch-site': 'cross-site',
              'content-type': 'application/x-www-form-urlencoded',
            },
          },
          (res) => {
            res.resume()
            resolve(res.statusCode ?? 0)
          },
        )
        req.on('error', reject)
        req.end('csrfToken=x')
      })
      expect(status).toBeLessThan(500)
      const entry = app.logs.find((logged) => logged.event === 'request.cross_site')
      expect(app.logs.map((logged) => logged.event)).toContain('request.cross_site')
      expect(JSON.stringify(entry)).not.toMatch(/\u0085/)
      expect(`${String(entry!.origin)}${String(entry!.fetchSite)}`).not.toMatch(/[\u0080-\u009f]/)
    } finally {
      await app.close()
    }
  })
})
