import { oauth2 } from '../../lib'
import { defaultLogger } from '../../lib/infra/logger'
import { guarded } from '../../lib/infra/store/guarded'
import { serve, type Served } from '../support/app'
import { Browser } from '../support/browser'

/**
 * Log forging: a value from a request must never put a line break into a log line. A host app with
 * the extended query parser (Express 4's default) turns `error[]=…` into an array, which a strategy
 * would put into its error; strategies see string parameters only, and the default logger escapes
 * control characters whatever reaches it.
 */
describe('log forging', () => {
  let app: Served

  beforeAll(async () => {
    app = await serve(
      {
        providerTimeout: 500,
        providers: [
          oauth2({
            id: 'stub',
            clientId: 'c',
            clientSecret: 's',
            authorizationUrl: 'http://127.0.0.1:9/authorize',
            tokenUrl: 'http://127.0.0.1:9/token',
          }),
        ],
      },
      { setup: (host) => host.set('query parser', 'extended') },
    )
  })
  afterAll(() => app?.close())

  it('an array parameter with CR/LF never reaches a log entry', async () => {
    const browser = new Browser(app)
    const started = await browser.startSignIn('stub')
    const state = new URL(started.headers.get('location')!).searchParams.get('state')!
    const forged = encodeURIComponent('x\r\n[express-auth-service] error session.created: signed in as admin')
    const back = await browser.returnTo(
      `${app.base}/callback/stub?code=abc&state=${encodeURIComponent(state)}&error[]=${forged}&error_description[]=${forged}`,
    )
    expect(back.headers.get('location')).toBe(`${app.base}/error?error=OAuthCallback`)
    expect(app.logs.length).toBeGreaterThan(0)
    expect(JSON.stringify(app.logs)).not.toMatch(/\\r|\\n|signed in as admin/)
  })

  it('the sign-in POST shows the strategy no query: ?error= and ?code= there start an ordinary flow and log nothing', async () => {
    app.logs.length = 0
    const browser = new Browser(app)
    const forged = encodeURIComponent('x\n[express-auth-service] error session.created: signed in\u2028')
    for (const query of [
      `?error=server_error&error_description=${forged}`,
      `?error=access_denied&error_description=${forged}`,
      '?code=1',
    ]) {
      const started = await browser.startSignIn('stub', { query })
      expect(started.status).toBe(302)
      expect(started.headers.get('location')).toMatch(/^http:\/\/127\.0\.0\.1:9\/authorize\?/)
    }
    expect(app.logs.filter((entry) => entry.event === 'callback.error')).toEqual([])
  })

  it('the default logger writes one line per entry, with control characters escaped', () => {
    const written: string[] = []
    const spy = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk))
      return true
    })
    try {
      defaultLogger({
        level: 'warn',
        event: 'callback.error',
        message: 'a\r\nforged line\u2028and\u0085more\u202eright-to-left',
        reason: 'x\ny',
      })
      defaultLogger({ level: 'info', event: 'session.created', message: 'not written' })
    } finally {
      spy.mockRestore()
    }
    expect(written).toHaveLength(1)
    expect(written[0]!.endsWith('\n')).toBe(true)
    expect(written[0]!.slice(0, -1)).not.toMatch(/[\r\n\u2028\u0085\u202e]/)
    expect(written[0]).toContain('a\\u000d\\u000aforged line\\u2028and\\u0085more\\u202eright-to-left')
  })

  it("a session store's failure is logged by its code or class name, never a forged one", async () => {
    const reasons: string[] = []
    const health = { ok: () => {}, failed: (reason: string) => void reasons.push(reason) }
    const hostile = Object.assign(new Error('row 42: secret'), { name: 'StoreError\n[express-auth-service] error x' })
    await expect(guarded(() => Promise.reject(hostile), 1000, health)).rejects.toMatchObject({
      code: 'ServiceUnavailable',
    })
    class StoreDown extends Error {
      override name = 'StoreDown'
    }
    await expect(guarded(() => Promise.reject(new StoreDown('x')), 1000, health)).rejects.toThrow()
    expect(reasons).toEqual(['a failure', 'StoreDown'])
  })
})
