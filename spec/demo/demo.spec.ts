import { join } from 'node:path'
import { Browser } from '../flows/oauth-harness'
import { freePort, startProcess, type Started } from '../support/process'

const root = join(__dirname, '../..')

/** A port whose successor is free too (the demo's identity provider listens on PORT + 1). */
async function freePortPair(): Promise<number> {
  for (;;) {
    const port = await freePort()
    const { createServer } = await import('node:net')
    const free = await new Promise<boolean>((resolve) => {
      const probe = createServer().once('error', () => resolve(false)).listen(port + 1, '127.0.0.1', () => probe.close(() => resolve(true)))
    })
    if (free) return port
  }
}

describe('the demo app (npm start)', () => {
  let demo: Started
  let port: number

  beforeAll(async () => {
    port = await freePortPair()
    demo = await startProcess('npm', ['start'], { cwd: root, env: { PORT: String(port), SERVICE_AUTH_SECRET: '' }, ready: /listening on/, timeoutMs: 90_000 })
  }, 100_000)

  afterAll(() => demo?.stop())

  it('answers on its home page and on /api/auth/csrf', async () => {
    const home = await fetch(`http://localhost:${port}/`)
    expect(home.status).toBe(200)
    expect(await home.text()).toMatch(/You are not signed in/)
    const csrf = await fetch(`http://localhost:${port}/api/auth/csrf`)
    expect(Object.keys((await csrf.json()) as object)).toEqual(['csrfToken'])
  })

  it('sends a visitor of the guarded page to the sign-in page', async () => {
    const res = await fetch(`http://localhost:${port}/private`, { redirect: 'manual' })
    expect(res.status).toBe(302)
    expect(res.headers.get('location')).toBe(`http://localhost:${port}/api/auth/signin?callbackUrl=${encodeURIComponent(`http://localhost:${port}/private`)}&error=SessionRequired`)
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
    await browser.jar.fetch(`${origin}/api/auth/signout`, { method: 'POST', body: new URLSearchParams({ csrfToken: await browser.csrfToken() }) })
    expect(await (await browser.jar.fetch(`${origin}/`)).text()).toMatch(/You are not signed in/)
  })

  it('starts its identity provider on PORT + 1 and explains the demo login', async () => {
    expect(demo.output()).toMatch(new RegExp(`embedded identity provider at http://127.0.0.1:${port + 1} \\(user "alice", any password\\)`))
  })

  it('warns that sessions end at restart when no secret is set', () => {
    expect(demo.output()).toMatch(/SERVICE_AUTH_SECRET is not set/)
  })

  it('stops with a message naming the variable when the secret is too short', async () => {
    await expect(startProcess('node', ['dist/examples/demo/server.js'], { cwd: root, env: { PORT: String(port + 2), SERVICE_AUTH_SECRET: 'short' }, ready: /listening on/, timeoutMs: 20_000 }))
      .rejects.toThrow(/exited with 1[\s\S]*SERVICE_AUTH_SECRET is 5 characters long/)
  })
})
