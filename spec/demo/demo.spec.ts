import { join } from 'node:path'
import { freePort, startProcess, type Started } from '../support/process'

const root = join(__dirname, '../..')

describe('the demo app (npm start)', () => {
  let demo: Started
  let port: number

  beforeAll(async () => {
    port = await freePort()
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

  it('warns that sessions end at restart when no secret is set', () => {
    expect(demo.output()).toMatch(/SERVICE_AUTH_SECRET is not set/)
  })

  it('stops with a message naming the variable when the secret is too short', async () => {
    await expect(startProcess('node', ['dist/examples/demo/server.js'], { cwd: root, env: { PORT: String(port + 1), SERVICE_AUTH_SECRET: 'short' }, ready: /listening on/, timeoutMs: 20_000 }))
      .rejects.toThrow(/exited with 1[\s\S]*SERVICE_AUTH_SECRET is 5 characters long/)
  })
})
