import { email, oidc } from '../../lib'
import { serve, type Served } from '../support/app'
import { Browser } from '../support/browser'
import { startIdp, type Idp } from '../support/idp'
import { freePort } from '../support/process'

/**
 * `router.ready()` settles when every provider's OpenID Connect discovery has answered: it resolves
 * for a right issuer and rejects, naming the provider and the cause, for a wrong or unreachable one.
 * A wrong issuer that answers is a configuration error (users see the Configuration page), an
 * unreachable one an outage (OAuthSignin); either is logged once, as `provider.discovery_failed`.
 */
let idp: Idp
const apps: Served[] = []

beforeAll(async () => {
  idp = await startIdp({ clients: [{ client_id: 'app', client_secret: 's', redirect_uris: ['http://localhost/cb'] }] })
})
afterAll(async () => {
  await Promise.all(apps.map((app) => app.close()))
  await idp?.stop()
})

async function serveIssuer(issuer: string): Promise<Served> {
  const app = await serve({
    providers: [
      oidc({ id: 'corp', issuer, clientId: 'app', clientSecret: 's' }),
      email({ from: 'auth@example.com', server: 'smtp://127.0.0.1:9' }),
    ],
  })
  apps.push(app)
  return app
}

const discoveryLogs = (app: Served) =>
  app.logs.filter((entry) => /discovery/i.test(entry.message) || entry.event === 'provider.discovery_failed')

describe('router.ready()', () => {
  it('resolves once the issuer has answered its discovery, and logs nothing', async () => {
    const app = await serveIssuer(idp.issuer)
    await expect(app.router.ready()).resolves.toBeUndefined()
    expect(discoveryLogs(app)).toEqual([])
  })

  it('rejects for an issuer whose discovery names another issuer; users see the Configuration page; logged once as an error', async () => {
    const wrong = idp.issuer.replace('127.0.0.1', 'localhost')
    const app = await serveIssuer(wrong)
    const failure = await app.router.ready().then(
      () => null,
      (error: unknown) => error,
    )
    expect(failure).toBeInstanceOf(Error)
    expect((failure as Error).message).toBe(
      `provider corp: OpenID Connect discovery at ${wrong} failed: discovery names the issuer "${idp.issuer}", not "${wrong}"`,
    )
    const res = await new Browser(app).startSignIn('corp')
    expect(res.headers.get('location')).toBe(`${app.base}/error?error=Configuration`)
    expect(discoveryLogs(app)).toEqual([
      {
        level: 'error',
        event: 'provider.discovery_failed',
        message: (failure as Error).message,
        provider: 'corp',
        cause: 'configuration',
      },
    ])
    expect(app.logs.filter((entry) => entry.event === 'config.warning' && entry.level === 'error')).toEqual([])
  })

  it('an issuer with a wrong path (its discovery answers 404) is a configuration error too', async () => {
    const app = await serveIssuer(`${idp.issuer}/realms/corp`)
    await expect(app.router.ready()).rejects.toThrow(/^provider corp: .* answered 404$/)
    const res = await new Browser(app).startSignIn('corp')
    expect(res.headers.get('location')).toBe(`${app.base}/error?error=Configuration`)
  })

  it('rejects for an unreachable issuer; users see "try again later" (OAuthSignin); logged once as a warning', async () => {
    const port = await freePort()
    const app = await serveIssuer(`http://127.0.0.1:${port}`)
    await expect(app.router.ready()).rejects.toThrow(
      `provider corp: OpenID Connect discovery at http://127.0.0.1:${port} failed: 127.0.0.1:${port} could not be reached (ECONNREFUSED)`,
    )
    const res = await new Browser(app).startSignIn('corp')
    expect(res.headers.get('location')).toBe(`${app.base}/error?error=OAuthSignin`)
    expect(discoveryLogs(app)).toEqual([
      expect.objectContaining({ level: 'warn', event: 'provider.discovery_failed', cause: 'unreachable' }),
    ])
  })

  it('is never an unhandled rejection when the app does not call it', async () => {
    const unhandled: unknown[] = []
    const listener = (reason: unknown) => void unhandled.push(reason)
    process.on('unhandledRejection', listener)
    try {
      const app = await serveIssuer(`http://127.0.0.1:${await freePort()}`)
      await new Browser(app).startSignIn('corp')
      await new Promise((resolve) => setTimeout(resolve, 100))
      expect(unhandled).toEqual([])
    } finally {
      process.off('unhandledRejection', listener)
    }
  })
})
