import type { Server } from 'node:http'
import express from 'express'
import { auth, oauth2, type LogEntry } from '../../lib'
import { defaultLogger } from '../../lib/logger'
import { SECRET } from '../support/app'
import { CookieJar } from '../support/cookie-jar'
import { freePort } from '../support/process'

/**
 * Log forging: a value from a request must never put a line break into a log line. A host app with
 * the extended query parser (Express 4's default) turns `error[]=…` into an array, which a strategy
 * would put into its error; strategies see string parameters only, and the default logger escapes
 * control characters whatever reaches it.
 */
describe('log forging', () => {
  let server: Server
  let base: string
  const logs: LogEntry[] = []

  beforeAll(async () => {
    const port = await freePort()
    base = `http://localhost:${port}/api/auth`
    const app = express()
    app.set('query parser', 'extended')
    app.use('/api/auth', auth({
      url: base,
      secret: SECRET,
      logger: (entry) => logs.push(entry),
      providerTimeout: 500,
      providers: [oauth2({ id: 'stub', clientId: 'c', clientSecret: 's', authorizationUrl: 'http://127.0.0.1:9/authorize', tokenUrl: 'http://127.0.0.1:9/token' })],
    }))
    server = await new Promise<Server>((resolve) => { const s = app.listen(port, '127.0.0.1', () => resolve(s)) })
  })
  afterAll(() => new Promise((resolve) => server.close(resolve)))

  it('an array parameter with CR/LF never reaches a log entry', async () => {
    const jar = new CookieJar()
    const { csrfToken } = (await (await jar.fetch(`${base}/csrf`)).json()) as { csrfToken: string }
    const started = await jar.fetch(`${base}/signin/stub`, { method: 'POST', body: new URLSearchParams({ csrfToken }) })
    const state = new URL(started.headers.get('location')!).searchParams.get('state')!
    const forged = encodeURIComponent('x\r\n[express-auth-service] error session.created: signed in as admin')
    const back = await jar.fetch(`${base}/callback/stub?code=abc&state=${encodeURIComponent(state)}&error[]=${forged}&error_description[]=${forged}`, {}, { crossSite: true })
    expect(back.headers.get('location')).toBe(`${base}/error?error=OAuthCallback`)
    expect(logs.length).toBeGreaterThan(0)
    expect(JSON.stringify(logs)).not.toMatch(/\\r|\\n|signed in as admin/)
  })

  it('the sign-in POST shows the strategy no query: ?error= and ?code= there start an ordinary flow and log nothing', async () => {
    logs.length = 0
    const jar = new CookieJar()
    const { csrfToken } = (await (await jar.fetch(`${base}/csrf`)).json()) as { csrfToken: string }
    const forged = encodeURIComponent('x\n[express-auth-service] error session.created: signed in\u2028')
    for (const query of [`?error=server_error&error_description=${forged}`, `?error=access_denied&error_description=${forged}`, '?code=1']) {
      const started = await jar.fetch(`${base}/signin/stub${query}`, { method: 'POST', body: new URLSearchParams({ csrfToken }) })
      expect(started.status).toBe(302)
      expect(started.headers.get('location')).toMatch(/^http:\/\/127\.0\.0\.1:9\/authorize\?/)
    }
    expect(logs.filter((entry) => entry.event === 'callback.error')).toEqual([])
  })

  it('the default logger writes one line per entry, with control characters escaped', () => {
    const written: string[] = []
    const spy = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => { written.push(String(chunk)); return true })
    try {
      defaultLogger({ level: 'warn', event: 'callback.error', message: 'a\r\nforged line\u2028and\u0085more\u202eright-to-left', reason: 'x\ny' })
      defaultLogger({ level: 'info', event: 'session.created', message: 'not written' })
    } finally {
      spy.mockRestore()
    }
    expect(written).toHaveLength(1)
    expect(written[0]!.endsWith('\n')).toBe(true)
    expect(written[0]!.slice(0, -1)).not.toMatch(/[\r\n\u2028\u0085\u202e]/)
    expect(written[0]).toContain('a\\u000d\\u000aforged line\\u2028and\\u0085more\\u202eright-to-left')
  })
})
