import { join } from 'node:path'
import { readSettings } from '../../examples/demo/settings'
import { Browser } from '../support/browser'
import { freePort, startProcess, type Started } from '../support/process'

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

/** The `href`s of a page, in order. */
const hrefs = (html: string) => [...html.matchAll(/\bhref="([^"]*)"/g)].map((match) => match[1])

describe('the demo app (npm start)', () => {
  let demo: Started
  let port: number

  beforeAll(async () => {
    port = await freePortPair()
    demo = await startProcess('npm', ['start'], {
      cwd: root,
      env: { PORT: String(port), SERVICE_AUTH_SECRET: '' },
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
    expect(hrefs(html)).toEqual(['/api/auth/assets/style.css', '/api/auth/signin', '/private'])
    const csrf = await fetch(`http://localhost:${port}/api/auth/csrf`)
    expect(Object.keys((await csrf.json()) as object)).toEqual(['csrfToken'])
  })

  it('sends a visitor of the guarded page to the sign-in page', async () => {
    const res = await fetch(`http://localhost:${port}/private`, { redirect: 'manual' })
    expect(res.status).toBe(302)
    expect(res.headers.get('location')).toBe(
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
    const home = await (await browser.jar.fetch(`${origin}/`)).text()
    expect(home).toMatch(/Signed in as <strong>Alice Example<\/strong>/)
    expect((await browser.jar.fetch(`${origin}/private`)).status).toBe(200)
    await browser.signOut()
    expect(await (await browser.jar.fetch(`${origin}/`)).text()).toMatch(/You are not signed in/)
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
        env: { PORT: String(port + 2), SERVICE_AUTH_SECRET: 'short' },
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
      env: { PORT: String(port), SERVICE_AUTH_URL: base, SERVICE_AUTH_SECRET: '' },
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
      '/myapp/api/authentication/signin',
      '/private',
    ])
    for (const href of hrefs(home)) expect((await fetch(new URL(href!, origin))).status).toBe(200) // /private: via the sign-in page
  })

  it('sends a visitor of the guarded page to the sign-in page under that path', async () => {
    const res = await fetch(`${origin}/private`, { redirect: 'manual' })
    expect(res.status).toBe(302)
    expect(res.headers.get('location')).toBe(
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
      '/private',
      '/myapp/api/authentication/signout',
    ])
    expect((await browser.jar.fetch(`${origin}/private`)).status).toBe(200)
    expect((await browser.jar.fetch(`${base}/signout`)).status).toBe(200)
    await browser.signOut()
    expect(await (await browser.jar.fetch(`${origin}/`)).text()).toMatch(/You are not signed in/)
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
        env: { PORT: String(port), SERVICE_AUTH_URL: url },
        ready: /listening on/,
        timeoutMs: 20_000,
      }),
    ).rejects.toThrow(new RegExp(`exited with 1[\\s\\S]*${message.source}`))
  })
})
