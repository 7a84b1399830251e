import { get } from 'node:http'
import { join } from 'node:path'
import { simpleParser, type AddressObject, type ParsedMail } from 'mailparser'
import { SMTPServer } from 'smtp-server'
import type { Redis } from 'ioredis'
import {
  databaseUrlForDisplay,
  rangeUrlForDisplay,
  readSettings,
  redisUrlForDisplay,
  smtpUrlForDisplay,
} from '../../examples/demo/settings'
import { place } from '../../examples/demo/pages'
import { clientKey } from '../../lib/infra/http/client-key'
import { Browser } from '../support/browser'
import { CookieJar } from '../support/cookie-jar'
import { eventually, literal, openLink, printedLink } from '../support/demo'
import { forms, type Form } from '../support/forms'
import { freePort, startProcess, type Started } from '../support/process'
import { ownRedis, type OwnRedis } from '../support/redis'

/**
 * A page load, as a browser sends it (requireAuth() answers anything else with 401). Not through
 * fetch(): Node's fetch always sends `Sec-Fetch-Mode: cors`.
 */
/** The status of a page a visitor opens, following redirects on the same origin. */
async function statusOfPage(url: URL): Promise<number> {
  for (let hops = 0; hops < 5; hops++) {
    const { status, location } = await pageLoad(url)
    if (location === null || status < 300 || status >= 400) return status
    url = new URL(location, url)
  }
  throw new Error(`too many redirects from ${url.href}`)
}

function pageLoad(url: string | URL): Promise<{ status: number; location: string | null }> {
  return new Promise((resolve, reject) => {
    const headers = { accept: 'text/html', 'sec-fetch-mode': 'navigate' }
    get(url, { headers }, (res) => {
      res.resume()
      res.on('end', () => resolve({ status: res.statusCode!, location: res.headers.location ?? null }))
    }).on('error', reject)
  })
}

const root = join(__dirname, '../..')

/** A port whose successor is free too (the demo's identity provider listens on PORT + 1). */
async function freePortPair(): Promise<number> {
  for (;;) {
    const port = await freePort()
    const { createServer } = await import('node:net')
    const free = await new Promise<boolean>((resolve) => {
      const probe = createServer()
        .once('error', () => resolve(false))
        .listen(port + 1, '127.0.0.1', () => probe.close(() => resolve(true)))
    })
    if (free) return port
  }
}

/** The `href`s of a page, in order, their character references decoded. */
const hrefs = (html: string) =>
  [...html.matchAll(/\bhref="([^"]*)"/g)].map((match) =>
    match[1]!.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code))).replace(/&amp;/g, '&'),
  )

/** The home page's list of the built-in pages, under `base`, with the way in or out first. */
const builtInPages = (base: string, inOrOut: 'signin' | 'signout') => [
  `${base}/${inOrOut}`,
  `${base}/verify-request?provider=email&type=email`,
  `${base}/error?error=Verification`,
  `${base}/session`,
]

/** The sign-in page's forms: the OAuth button's, then the e-mail form under it. */
async function signInPageForms(jar: CookieJar, base: string): Promise<Form[]> {
  const page = await jar.fetch(`${base}/signin`)
  expect(page.status).toBe(200)
  return forms(await page.text())
}

/** Types `address` into the sign-in page's e-mail form and submits it: the service's answer. */
async function requestLink(jar: CookieJar, base: string, address: string): Promise<Response> {
  const emailForm = (await signInPageForms(jar, base)).find((form) => form.action === `${base}/signin/email`)
  if (!emailForm) throw new Error('the sign-in page has no e-mail form')
  return jar.fetch(emailForm.action, {
    method: 'POST',
    body: new URLSearchParams({ ...emailForm.fields, email: address }),
  })
}

describe('the demo app (npm start)', () => {
  let demo: Started
  let port: number

  beforeAll(async () => {
    port = await freePortPair()
    demo = await startProcess('npm', ['start'], {
      cwd: root,
      env: {
        PORT: String(port),
        SERVICE_AUTH_SECRET: '',
        SMTP_URL: '',
        EMAIL_FROM: '',
        REDIS_URL: '',
        DATABASE_URL: '',
      },
      ready: /listening on/,
      timeoutMs: 90_000,
    })
  }, 100_000)

  afterAll(() => demo?.stop())

  it('answers on its home page and on /api/auth/csrf', async () => {
    const home = await fetch(`http://localhost:${port}/`)
    expect(home.status).toBe(200)
    const html = await home.text()
    expect(html).toMatch(/You are not signed in/)
    expect(hrefs(html)).toEqual([
      '/api/auth/assets/style.css',
      '/demo.css',
      '/api/auth/signin',
      '/api/auth/password/signup',
      '/private',
      '/client',
      ...builtInPages('/api/auth', 'signin'),
    ])
    const csrf = await fetch(`http://localhost:${port}/api/auth/csrf`)
    expect(Object.keys((await csrf.json()) as object)).toEqual(['csrfToken'])
  })

  it('sends a visitor of the guarded page to the sign-in page', async () => {
    const res = await pageLoad(`http://localhost:${port}/private`)
    expect(res.status).toBe(302)
    expect(res.location).toBe(
      `http://localhost:${port}/api/auth/signin?callbackUrl=${encodeURIComponent(`http://localhost:${port}/private`)}&error=SessionRequired`,
    )
  })

  it('signs a newcomer in with "Demo" through its embedded identity provider, and out again', async () => {
    const origin = `http://localhost:${port}`
    const browser = new Browser({ origin, base: `${origin}/api/auth` })
    const providers = (await (await fetch(`${origin}/api/auth/providers`)).json()) as Record<string, { name: string }>
    expect(providers.oidc?.name).toBe('Demo')
    const signedIn = await browser.signIn('oidc')
    expect(signedIn.headers.get('location')).toBe(`${origin}/welcome`)
    const homeResponse = await browser.jar.fetch(`${origin}/`)
    const home = await homeResponse.text()
    expect(home).toMatch(/Signed in as <strong>Alice Example<\/strong>/)
    // The picture the provider gave, from the provider, sending no Referer, and allowed by the CSP.
    const idp = `http://127.0.0.1:${port + 1}`
    expect(home).toContain(
      `<img src="${idp}/avatar/alice.svg" alt="" width="64" height="64" referrerpolicy="no-referrer">`,
    )
    expect(homeResponse.headers.get('content-security-policy')).toMatch(new RegExp(`; img-src https: ${literal(idp)}$`))
    // Cookie sessions are in no list: the page says so, and offers to end them all at once.
    expect(home).toContain('Sessions are kept in encrypted cookies, which the server cannot list')
    // password() beside her ways in: she has none, so the change form's link adds one.
    expect(home).toContain('<p><a href="/api/auth/password/change">Add a password</a></p>')
    expect(home).not.toContain('Change password')
    // Her one way in with "Unlink", "Link Email" (spec/demo/accounts.spec.ts), then her passkeys.
    expect(forms(home).flatMap((form) => form.buttons)).toEqual([
      'Unlink',
      'Link Email',
      'Add a passkey',
      'Sign out everywhere but here',
      'Sign out everywhere',
    ])
    const avatar = await fetch(`${idp}/avatar/alice.svg`)
    expect([avatar.status, avatar.headers.get('content-type')]).toEqual([200, expect.stringMatching(/^image\/svg/)])
    expect((await browser.jar.fetch(`${origin}/private`)).status).toBe(200)
    await browser.signOut()
    expect(await (await browser.jar.fetch(`${origin}/`)).text()).toMatch(/You are not signed in/)
  })

  it('signs a newcomer in by e-mail from the sign-in page, the link printed by its development mail transport', async () => {
    const origin = `http://localhost:${port}`
    const base = `${origin}/api/auth`
    const jar = new CookieJar()
    const [oauthForm, passwordForm, emailForm, passkeyForm, ...none] = await signInPageForms(jar, base)
    expect(none).toEqual([])
    // password(): the password form, which posts to the credentials callback.
    expect(passwordForm).toMatchObject({ action: `${base}/callback/credentials` })
    // The passkey form, which the page's script shows in a browser with passkeys.
    expect(passkeyForm).toMatchObject({ action: `${base}/callback/passkey`, buttons: ['Sign in with a passkey'] })
    expect(oauthForm).toMatchObject({ action: `${base}/signin/oidc`, buttons: ['Sign in with Demo'] })
    expect(emailForm).toMatchObject({ method: 'post', action: `${base}/signin/email`, buttons: ['Sign in with Email'] })
    expect(Object.keys(emailForm!.fields)).toEqual(['csrfToken', 'callbackUrl', 'email'])

    const sent = await requestLink(jar, base, 'someone@example.com')
    expect(sent.status).toBe(302)
    expect(sent.headers.get('location')).toBe(`${base}/verify-request?provider=email&type=email`)
    // The "Check your email" page says where the link went: no mail was sent.
    const checkEmail = await (await jar.fetch(sent.headers.get('location')!)).text()
    expect(checkEmail).toContain('<h1>Check your email</h1>')
    expect(checkEmail).toContain('No mail is sent: this demo has no SMTP_URL. Its console shows the sign-in link')
    const link = await eventually(
      () => printedLink('someone@example.com').exec(demo.output())?.[1],
      'sign-in link on the console',
    )
    expect(link).toMatch(
      new RegExp(`^${literal(base)}/callback/email\\?token=[\\w-]{20,}&email=someone%40example\\.com&`),
    )

    const confirmed = await openLink(jar, link, 'someone@example.com')
    expect(confirmed.status).toBe(302)
    expect(confirmed.headers.get('location')).toBe(`${origin}/`)
    const home = await (await jar.fetch(`${origin}/`)).text()
    expect(home).toContain('Signed in as <strong>someone@example.com</strong>.')
    expect((await jar.fetch(`${origin}/private`)).status).toBe(200)
    // The link is spent: opened and confirmed again, it signs nobody in.
    const again = await openLink(new CookieJar(), link, 'someone@example.com')
    expect(again.headers.get('location')).toBe(`${base}/error?error=Verification`)
  })

  it('says truthfully where the link is when the per-address limit sent none', async () => {
    const origin = `http://localhost:${port}`
    const base = `${origin}/api/auth`
    const address = 'twice@example.com'
    const first = await requestLink(new CookieJar(), base, address)
    await eventually(() => printedLink(address).exec(demo.output())?.[1], 'the first sign-in link on the console')
    // The second within the minute is over the limit: the same redirect and page (no oracle for
    // the address), and nothing printed but the service's line saying no link was sent.
    const jar = new CookieJar()
    const second = await requestLink(jar, base, address)
    expect(second.headers.get('location')).toBe(first.headers.get('location'))
    const checkEmail = await (await jar.fetch(second.headers.get('location')!)).text()
    expect(checkEmail).not.toContain('it printed the sign-in link')
    expect(checkEmail).toContain('No mail is sent: this demo has no SMTP_URL.')
    expect(checkEmail).toContain('or a line saying that none was sent')
    await eventually(
      () => /email\.rate_limited.*no sign-in link was sent: over the address limit/.exec(demo.output()),
      'the line saying no link was sent',
    )
    expect(demo.output().match(new RegExp(printedLink(address).source, 'gm'))).toHaveLength(1)
  })

  it('says at start that without SMTP_URL sign-in links are printed, not sent', () => {
    expect(demo.output()).toContain(
      'demo: SMTP_URL is not set; e-mail sign-in links are printed here (development mail transport), not sent\n',
    )
  })

  it("says at start that without BREACHED_RANGE_URL new passwords are checked against Have I Been Pwned's public API", () => {
    expect(demo.output()).toContain(
      "demo: BREACHED_RANGE_URL is not set; new passwords are checked against Have I Been Pwned's public range API (when it does not answer within 2 s, the password is let through and the service logs that)\n",
    )
  })

  it('starts its identity provider on PORT + 1 and explains the demo login', async () => {
    expect(demo.output()).toMatch(
      new RegExp(`embedded identity provider at http://127.0.0.1:${port + 1} \\(user "alice", any password\\)`),
    )
  })

  it('warns that sessions end at restart when no secret is set', () => {
    expect(demo.output()).toMatch(/SERVICE_AUTH_SECRET is not set/)
  })

  it('stops with a message naming the variable when the secret is too short', async () => {
    await expect(
      startProcess('node', ['dist/examples/demo/server.js'], {
        cwd: root,
        env: { PORT: String(port + 2), SERVICE_AUTH_SECRET: 'short', REDIS_URL: '', DATABASE_URL: '' },
        ready: /listening on/,
        timeoutMs: 20_000,
      }),
    ).rejects.toThrow(/exited with 1[\s\S]*SERVICE_AUTH_SECRET is 5 characters long/)
  })
})

describe('the demo app with the auth service on another path (SERVICE_AUTH_URL)', () => {
  // The built server: the describe block above ran `npm start`, which built it.
  let demo: Started
  let origin: string
  let base: string

  beforeAll(async () => {
    const port = await freePortPair()
    origin = `http://localhost:${port}`
    base = `${origin}/myapp/api/authentication`
    demo = await startProcess('node', ['dist/examples/demo/server.js'], {
      cwd: root,
      env: {
        PORT: String(port),
        SERVICE_AUTH_URL: base,
        SERVICE_AUTH_SECRET: '',
        SMTP_URL: '',
        REDIS_URL: '',
        DATABASE_URL: '',
      },
      ready: /listening on/,
      timeoutMs: 20_000,
    })
  }, 30_000)

  afterAll(() => demo?.stop())

  it('serves the service under that path, and nothing under /api/auth', async () => {
    const csrf = await fetch(`${base}/csrf`)
    expect(csrf.status).toBe(200)
    expect((await csrf.json()) as object).toEqual({ csrfToken: expect.stringMatching(/^\S{16,}$/) })
    expect((await fetch(`${origin}/api/auth/csrf`)).status).toBe(404)
    expect(demo.output()).toContain(`(auth service at ${base})`)
  })

  it('lists "Demo" with absolute URLs under that path', async () => {
    const res = await fetch(`${base}/providers`)
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({
      oidc: {
        id: 'oidc',
        name: 'Demo',
        type: 'oauth',
        signinUrl: `${base}/signin/oidc`,
        callbackUrl: `${base}/callback/oidc`,
      },
      email: {
        id: 'email',
        name: 'Email',
        type: 'email',
        signinUrl: `${base}/signin/email`,
        callbackUrl: `${base}/callback/email`,
      },
      passkey: {
        id: 'passkey',
        name: 'Passkey',
        type: 'webauthn',
        signinUrl: `${base}/signin/passkey`,
        callbackUrl: `${base}/callback/passkey`,
      },
      credentials: {
        id: 'credentials',
        name: 'Password',
        type: 'credentials',
        signinUrl: `${base}/signin/credentials`,
        callbackUrl: `${base}/callback/credentials`,
      },
    })
  })

  it('renders the sign-in page with its stylesheet under that path', async () => {
    const res = await fetch(`${base}/signin`)
    expect(res.status).toBe(200)
    const html = await res.text()
    expect(html).toMatch(/Sign in with Demo/)
    expect(html).toContain(`<link rel="stylesheet" href="${base}/assets/style.css">`)
    const css = await fetch(`${base}/assets/style.css`)
    expect(css.status).toBe(200)
    expect(css.headers.get('content-type')).toMatch(/^text\/css/)
  })

  it('links its own pages to the service under that path', async () => {
    const home = await (await fetch(`${origin}/`)).text()
    expect(hrefs(home)).toEqual([
      '/myapp/api/authentication/assets/style.css',
      '/demo.css',
      '/myapp/api/authentication/signin',
      '/myapp/api/authentication/password/signup',
      '/private',
      '/client',
      ...builtInPages('/myapp/api/authentication', 'signin'),
    ])
    for (const href of hrefs(home)) {
      // /private: via the sign-in page; the error page answers with its code's status.
      expect(await statusOfPage(new URL(href, origin))).toBe(href.includes('/error?') ? 403 : 200)
    }
  })

  it('sends a visitor of the guarded page to the sign-in page under that path', async () => {
    const res = await pageLoad(`${origin}/private`)
    expect(res.status).toBe(302)
    expect(res.location).toBe(
      `${base}/signin?callbackUrl=${encodeURIComponent(`${origin}/private`)}&error=SessionRequired`,
    )
  })

  it('signs a newcomer in with "Demo" through its embedded identity provider, and out again', async () => {
    const browser = new Browser({ origin, base })
    const signedIn = await browser.signIn('oidc')
    expect(signedIn.headers.get('location')).toBe(`${origin}/welcome`)
    const home = await (await browser.jar.fetch(`${origin}/`)).text()
    expect(home).toMatch(/Signed in as <strong>Alice Example<\/strong>/)
    expect(hrefs(home)).toEqual([
      '/myapp/api/authentication/assets/style.css',
      '/demo.css',
      '/private',
      '/myapp/api/authentication/signout',
      '/client',
      // "Add a password", beside her ways in.
      '/myapp/api/authentication/password/change',
      // "Set up two-factor sign-in": the built-in setup page, under the service's own path.
      '/myapp/api/authentication/mfa/setup',
      ...builtInPages('/myapp/api/authentication', 'signout'),
    ])
    expect((await browser.jar.fetch(`${origin}/private`)).status).toBe(200)
    expect((await browser.jar.fetch(`${base}/signout`)).status).toBe(200)
    await browser.signOut()
    expect(await (await browser.jar.fetch(`${origin}/`)).text()).toMatch(/You are not signed in/)
  })
})

describe('the demo app sending its sign-in mails through SMTP_URL', () => {
  // The built server, as above; an SMTP server on loopback that keeps every mail it accepts.
  let demo: Started
  let smtp: SMTPServer
  let smtpPort: number
  let origin: string
  let port: number
  const mails: ParsedMail[] = []

  beforeAll(async () => {
    smtpPort = await freePort()
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      disableReverseLookup: true,
      logger: false,
      closeTimeout: 200,
      onData(stream, _session, callback) {
        // Kept before the server answers 250: once the demo's sendMail resolves, the mail is here.
        simpleParser(stream).then(
          (mail) => {
            mails.push(mail)
            callback()
          },
          (error: Error) => callback(error),
        )
      },
    })
    await new Promise<void>((resolve, reject) => {
      smtp.once('error', reject)
      smtp.listen(smtpPort, '127.0.0.1', () => resolve())
    })
    port = await freePortPair()
    origin = `http://localhost:${port}`
    demo = await startProcess('node', ['dist/examples/demo/server.js'], {
      cwd: root,
      env: {
        PORT: String(port),
        SERVICE_AUTH_SECRET: '',
        SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
        EMAIL_FROM: 'Demo <demo@example.com>',
        REDIS_URL: '',
        DATABASE_URL: '',
      },
      ready: /listening on/,
      timeoutMs: 20_000,
    })
  }, 30_000)

  afterAll(async () => {
    await demo?.stop()
    await new Promise<void>((resolve) => (smtp ? smtp.close(() => resolve()) : resolve()))
  })

  it('mails the link from EMAIL_FROM to the address, and prints neither the link nor the address', async () => {
    const base = `${origin}/api/auth`
    const jar = new CookieJar()
    const sent = await requestLink(jar, base, 'someone@example.com')
    expect(sent.status).toBe(302)
    expect(sent.headers.get('location')).toBe(`${base}/verify-request?provider=email&type=email`)
    // A real mail went out: the page says so, and nothing about a console.
    const checkEmail = await (await jar.fetch(sent.headers.get('location')!)).text()
    expect(checkEmail).toContain('A sign-in link has been sent to your email address.')
    expect(checkEmail).not.toContain('console')

    expect(mails).toHaveLength(1)
    const [mail] = mails
    const addresses = (field: AddressObject | AddressObject[] | undefined) =>
      [field ?? []].flat().flatMap((group) => group.value.map(({ name, address }) => ({ name, address })))
    expect(mail!.subject).toBe(`Sign in to localhost:${port}`)
    expect(addresses(mail!.from)).toEqual([{ name: 'Demo', address: 'demo@example.com' }])
    expect(addresses(mail!.to)).toEqual([{ name: '', address: 'someone@example.com' }])
    const link = new RegExp(`^${literal(base)}/callback/email\\?\\S+$`, 'm').exec(mail!.text ?? '')?.[0]
    expect(link).toBeDefined()

    // The link from the mail signs in.
    const confirmed = await openLink(jar, link!, 'someone@example.com')
    expect(confirmed.headers.get('location')).toBe(`${origin}/`)
    expect(await (await jar.fetch(`${origin}/`)).text()).toContain('Signed in as <strong>someone@example.com</strong>.')

    // Several round trips later, anything the demo printed for that mail would have arrived.
    const output = demo.output()
    expect(output).toContain(
      `demo: sign-in mails go through smtp://127.0.0.1:${smtpPort} from Demo <demo@example.com>\n`,
    )
    expect(output).not.toMatch(/development mail transport/)
    expect(output).not.toContain(new URL(link!).searchParams.get('token')!)
    expect(output).not.toContain('someone@example.com')
  })
})

describe('the demo app keeping its state in Redis (REDIS_URL)', () => {
  // The built server, as above, on a redis-server of this spec's own (database 3 of it): the demo
  // writes under the package's default prefix, which is no place for a shared server's keys.
  let demo: Started
  let redis: OwnRedis
  let client: Redis
  let origin: string

  beforeAll(async () => {
    redis = await ownRedis()
    client = redis.client({ db: 3 })
    const port = await freePortPair()
    origin = `http://localhost:${port}`
    demo = await startProcess('node', ['dist/examples/demo/server.js'], {
      cwd: root,
      env: { PORT: String(port), SERVICE_AUTH_SECRET: '', SMTP_URL: '', REDIS_URL: `${redis.url}/3`, DATABASE_URL: '' },
      ready: /listening on/,
      timeoutMs: 20_000,
    })
  }, 30_000)

  afterAll(async () => {
    await demo?.stop()
    await redis?.close()
  })

  it("says so at start, without the URL's credentials", () => {
    expect(demo.output()).toContain(`demo: sessions, sign-in links and rate limits are kept in Redis at ${redis.url}/3`)
    expect(demo.output()).toContain(`demo: accounts are kept in Redis at ${redis.url}/3\n`)
  })

  it("keeps accounts there: a sign-up's identity claimed in Redis, the same user at the next sign-in", async () => {
    const browser = new Browser({ origin, base: `${origin}/api/auth` })
    await browser.signIn('oidc')
    expect(await client.keys('auth:acct:id:*')).toHaveLength(1)
    const before = await (await browser.jar.fetch(`${origin}/`)).text()
    await browser.signOut()
    await browser.signIn('oidc')
    const after = await (await browser.jar.fetch(`${origin}/`)).text()
    const accountIds = (html: string) => forms(html).flatMap((form) => form.hidden.accountId ?? [])
    expect(accountIds(after)).toEqual(accountIds(before))
    expect(accountIds(after)).toHaveLength(1)
    await browser.signOut()
  })

  it('keeps database sessions there: a token in the cookie, the session in Redis until sign-out', async () => {
    const browser = new Browser({ origin, base: `${origin}/api/auth` })
    await browser.signIn('oidc')
    const token = browser.cookie('auth.session-token')?.value
    expect(token).toMatch(/^[\w-]{43}$/)
    // The record, and beside it where it signed in from (its device entry).
    expect((await client.keys('auth:sess:*')).filter((key) => !key.includes(':device.'))).toHaveLength(1)
    expect(await (await browser.jar.fetch(`${origin}/`)).text()).toMatch(/Signed in as <strong>Alice Example<\/strong>/)
    await browser.signOut()
    expect(await client.keys('auth:sess:*')).toEqual([])
  })

  it('lists a user signed in twice as two devices, this one marked, and "Sign out this one" ends the other', async () => {
    const base = `${origin}/api/auth`
    const laptop = new Browser({ origin, base })
    const phone = new Browser({ origin, base })
    await laptop.signIn('oidc')
    await phone.signIn('oidc')
    const home = await (await laptop.jar.fetch(`${origin}/`)).text()
    const devices = [...home.matchAll(/<li class="device( current)?">(.*?)<\/li>/g)]
    expect(devices).toHaveLength(2)
    const current = devices.filter(([, marked]) => marked !== undefined)
    expect(current).toHaveLength(1)
    expect(current[0]![2]).toContain('(this device)')
    for (const [, , item] of devices) expect(item).toMatch(/signed in with oidc at .* · last seen /)
    // Readable: where as a person names it (this computer is localhost, not ::/64 or 127.0.0.1),
    // and when as a date and a time, not an ISO string or seconds.
    for (const [, , item] of devices) {
      expect(item).toMatch(
        /<span class="details">localhost · signed in with oidc at \d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2} UTC · last seen \d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2} UTC<\/span>/,
      )
      expect(item).not.toMatch(/::|127\.0\.0\.1|\d{4}-\d{2}-\d{2}/)
    }

    const pageForms = forms(home)
    const signOutThisOne = pageForms.filter((form) => form.buttons.includes('Sign out this one'))
    expect(signOutThisOne).toHaveLength(1)
    expect(signOutThisOne[0]).toMatchObject({ method: 'post', action: '/devices/sign-out' })
    expect(
      pageForms.filter((form) => form.action === `/api/auth/signout`).map((form) => [form.buttons, form.hidden]),
    ).toEqual([
      [['Sign out everywhere but here'], { csrfToken: expect.any(String), callbackUrl: '/', others: 'true' }],
      [['Sign out everywhere'], { csrfToken: expect.any(String), callbackUrl: '/', everywhere: 'true' }],
    ])
    const { fields } = signOutThisOne[0]!
    expect(fields.csrfToken).toBe(await laptop.csrfToken())

    // Without the CSRF token, nothing is signed out.
    const forged = await laptop.jar.fetch(`${origin}/devices/sign-out`, {
      method: 'POST',
      body: new URLSearchParams({ handle: fields.handle! }),
    })
    expect(forged.status).toBe(403)
    expect(await phone.session()).toHaveProperty('user')

    const done = await laptop.jar.fetch(`${origin}/devices/sign-out`, {
      method: 'POST',
      body: new URLSearchParams(fields),
    })
    expect([done.status, done.headers.get('location')]).toEqual([303, '/'])
    expect(await phone.session()).toEqual({})
    expect(await laptop.session()).toHaveProperty('user')
    const after = await (await laptop.jar.fetch(`${origin}/`)).text()
    expect([...after.matchAll(/<li class="device/g)]).toHaveLength(1)
    await laptop.signOut()
  })

  it('answers its home page with 503 and a message while Redis is down, and works again once it is back', async () => {
    const browser = new Browser({ origin, base: `${origin}/api/auth` })
    await browser.signIn('oidc')
    await redis.stop('SIGKILL')
    try {
      const down = await browser.jar.fetch(`${origin}/`)
      expect(down.status).toBe(503)
      expect(down.headers.get('retry-after')).toBe('5')
      expect(await down.text()).toContain('The session store (Redis) does not answer')
    } finally {
      await redis.start()
    }
    // Redis came back empty (nothing persists here): the session is gone, the page answers again.
    let page = await browser.jar.fetch(`${origin}/`)
    for (let i = 0; i < 50 && page.status !== 200; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      page = await browser.jar.fetch(`${origin}/`)
    }
    expect(page.status).toBe(200)
    expect(await page.text()).not.toContain('Signed in as')
  })
})

describe("the demo's devices list", () => {
  it('names this computer localhost, over IPv6 (::1, counted by its /64) as over IPv4', () => {
    const places = ['::1', '::ffff:127.0.0.1', '127.0.0.1', '2001:db8::1'].map((ip) => place(clientKey(ip)))
    expect(places).toEqual(['localhost', 'localhost', 'localhost', '2001:db8:0:0::/64'])
    expect(place(null)).toBe('address unknown')
  })
})

describe("the demo's settings", () => {
  it('reads the service URL and base path from SERVICE_AUTH_URL as the package does (no trailing slash, /api/auth when it has no path)', () => {
    expect(readSettings({ PORT: '4000' })).toMatchObject({
      url: 'http://localhost:4000/api/auth',
      basePath: '/api/auth',
    })
    expect(readSettings({ SERVICE_AUTH_URL: 'http://localhost:3000/myapp/api/authentication/' })).toMatchObject({
      url: 'http://localhost:3000/myapp/api/authentication',
      basePath: '/myapp/api/authentication',
    })
    expect(readSettings({ SERVICE_AUTH_URL: 'HTTP://LocalHost:3000' })).toMatchObject({
      url: 'http://localhost:3000/api/auth',
      basePath: '/api/auth',
    })
  })

  it('reads SMTP_URL (none: links go to the console) and EMAIL_FROM (auth@localhost by default)', () => {
    expect(readSettings({})).toMatchObject({ smtpUrl: null, emailFrom: 'auth@localhost' })
    expect(readSettings({ SMTP_URL: '', EMAIL_FROM: '' })).toMatchObject({ smtpUrl: null, emailFrom: 'auth@localhost' })
    expect(
      readSettings({ SMTP_URL: 'smtps://user:secret@smtp.example.com:465', EMAIL_FROM: 'Demo <demo@example.com>' }),
    ).toMatchObject({ smtpUrl: 'smtps://user:secret@smtp.example.com:465', emailFrom: 'Demo <demo@example.com>' })
    expect(readSettings({ SMTP_URL: 'SMTP://LocalHost:2525' })).toMatchObject({ smtpUrl: 'SMTP://LocalHost:2525' })
  })

  it('reads DATABASE_URL (postgres:// or postgresql://) and shows it without credentials', () => {
    expect(readSettings({}).databaseUrl).toBeNull()
    expect(readSettings({ DATABASE_URL: '' }).databaseUrl).toBeNull()
    expect(readSettings({ DATABASE_URL: 'postgresql://demo:pw@db.example.com:5432/demo' }).databaseUrl).toBe(
      'postgresql://demo:pw@db.example.com:5432/demo',
    )
    expect(databaseUrlForDisplay('postgres://demo:pw@db.example.com:5432/demo?sslmode=require')).toBe(
      'postgres://db.example.com:5432/demo',
    )
  })

  it('reads REDIS_URL (redis:// or rediss://, an optional database number) and shows it without credentials', () => {
    expect(readSettings({}).redisUrl).toBeNull()
    expect(readSettings({ REDIS_URL: 'rediss://:pw@cache.example.com:6380/2' }).redisUrl).toBe(
      'rediss://:pw@cache.example.com:6380/2',
    )
    expect(redisUrlForDisplay('rediss://user:pw@cache.example.com:6380/2')).toBe('rediss://cache.example.com:6380/2')
  })

  it('reads BREACHED_RANGE_URL (none: the public API) and shows it without credentials', () => {
    expect(readSettings({}).breachedRangeUrl).toBeNull()
    expect(readSettings({ BREACHED_RANGE_URL: '' }).breachedRangeUrl).toBeNull()
    expect(readSettings({ BREACHED_RANGE_URL: 'http://127.0.0.1:8080/range/' }).breachedRangeUrl).toBe(
      'http://127.0.0.1:8080/range/',
    )
    expect(rangeUrlForDisplay('https://user:secret@pwned.example.com/range/?key=secret')).toBe(
      'https://pwned.example.com/range/',
    )
  })

  it('shows SMTP_URL on the console without its credentials or options', () => {
    expect(smtpUrlForDisplay('smtps://user:secret@smtp.example.com:465/?pool=true')).toBe(
      'smtps://smtp.example.com:465/',
    )
    expect(smtpUrlForDisplay('smtp://127.0.0.1:2525')).toBe('smtp://127.0.0.1:2525')
  })

  it.each([
    [
      'SMTP_URL',
      'an http(s) URL',
      'https://user:secret@mail.example.com',
      /SMTP_URL must be an smtp:\/\/ or smtps:\/\/ URL such as smtp:\/\/localhost:25[^\n]*; got a URL starting with "https:"/,
    ],
    [
      'SMTP_URL',
      'not a URL',
      'secret@mail.example.com',
      /SMTP_URL must be an smtp:\/\/ or smtps:\/\/ URL[^\n]*; got something that is not a URL/,
    ],
    [
      'SMTP_URL',
      'without a host',
      'smtp:secret',
      /SMTP_URL must be an smtp:\/\/ or smtps:\/\/ URL[^\n]*; got one without a host/,
    ],
    [
      'REDIS_URL',
      'an http URL',
      'http://user:secret@cache.example.com:6379',
      /REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL such as redis:\/\/localhost:6379\/0; got a URL starting with "http:"/,
    ],
    [
      'REDIS_URL',
      'a path that is no database number',
      'redis://:secret@cache.example.com:6379/sessions',
      /REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL[^\n]*; the path may only be a database number/,
    ],
    [
      'DATABASE_URL',
      'a mysql URL',
      'mysql://demo:secret@db.example.com:3306/demo',
      /DATABASE_URL must be a postgres:\/\/ or postgresql:\/\/ URL such as postgres:\/\/localhost:5432\/demo; got a URL starting with "mysql:"/,
    ],
    [
      'BREACHED_RANGE_URL',
      'not http(s)',
      'ftp://user:secret@pwned.example.com/range/',
      /BREACHED_RANGE_URL must be an http\(s\) URL such as https:\/\/api\.pwnedpasswords\.com\/range\//,
    ],
    [
      'EMAIL_FROM',
      'two lines',
      'demo@example.com\r\nBcc: secret@example.com',
      /EMAIL_FROM must be the sender on one line/,
    ],
  ])('stops with a message naming %s when it is %s, without repeating it', async (name, _case, value, message) => {
    const port = await freePort()
    const stopped = startProcess('node', ['dist/examples/demo/server.js'], {
      cwd: root,
      env: { PORT: String(port), REDIS_URL: '', DATABASE_URL: '', SMTP_URL: '', [name]: value },
      ready: /listening on/,
      timeoutMs: 20_000,
    })
    const error = await stopped.then(
      async (started) => {
        await started.stop()
        throw new Error('the demo started')
      },
      (failure: Error) => failure.message,
    )
    expect(error).toMatch(new RegExp(`^exited with 1[\\s\\S]*${message.source}`))
    expect(error).not.toContain('secret')
  })

  it.each([
    [
      'not an absolute URL',
      '/myapp/api/authentication',
      /SERVICE_AUTH_URL must be an absolute http\(s\) URL such as http:\/\/localhost:3000\/api\/auth; got "\/myapp\/api\/authentication"/,
    ],
    [
      'not http(s)',
      'ftp://localhost:3000/api/auth',
      /SERVICE_AUTH_URL must be an absolute http\(s\) URL[^\n]*; got "ftp:\/\/localhost:3000\/api\/auth"/,
    ],
    [
      'with a query',
      'http://localhost:3000/api/auth?x=1',
      /SERVICE_AUTH_URL must not carry credentials, a query or a fragment/,
    ],
  ])('stops with a message naming SERVICE_AUTH_URL when it is %s', async (_case, url, message) => {
    const port = await freePort()
    await expect(
      startProcess('node', ['dist/examples/demo/server.js'], {
        cwd: root,
        env: { PORT: String(port), SERVICE_AUTH_URL: url, REDIS_URL: '', DATABASE_URL: '' },
        ready: /listening on/,
        timeoutMs: 20_000,
      }),
    ).rejects.toThrow(new RegExp(`exited with 1[\\s\\S]*${message.source}`))
  })
})
