import express from 'express'
import session from 'express-session'
import Redis from 'ioredis'
import request from 'supertest'
import { auth, ConfigurationError, oidc, type AuthOptions, type LogEntry } from '../../lib'
import { resolveOptions as resolveConfig } from '../../lib/auth'
import { BASE, SECRET } from '../support/app'
import { configError } from '../support/config-error'

const valid = { url: BASE, secret: SECRET, logger: false as const }
/** The warnings beside the one a test is about: these configurations have no providers. */
const besidesNoProviders = (entry: { message: string }) => !entry.message.startsWith('`providers` is empty')

describe('configuration', () => {
  it('applies the documented defaults', () => {
    const config = resolveConfig(valid, {})
    expect(config.base).toEqual({ origin: 'http://localhost:3000', path: '/api/auth', href: BASE, secure: false })
    expect(config.session).toEqual({
      strategy: 'cookie',
      maxAge: 30 * 86400,
      updateAge: 86400,
      maxLifetime: 30 * 86400,
      store: null,
      revocationDelay: 10,
    })
    expect(config.redis).toBeNull()
    expect(config.bodyTimeout).toBe(10_000)
    expect(config.providerTimeout).toBe(10_000)
    expect(config.cookies.plain.sessionToken.name).toBe('auth.session-token')
    expect(config.cookies.plain.csrfToken.attrs).toBe('; Path=/; HttpOnly; SameSite=Lax')
    const https = resolveConfig({ ...valid, url: 'https://example.com/api/auth' }, {})
    // Every https cookie without a Domain is __Host-: no sibling subdomain can plant it.
    expect(https.cookies.secure.csrfToken.name).toBe('__Host-auth.csrf-token')
    expect(https.cookies.secure.sessionToken.name).toBe('__Host-auth.session-token')
    expect(https.cookies.secure.flow.name).toBe('__Host-auth.flow')
    expect(https.cookies.secure.sessionToken.attrs).toBe('; Path=/; HttpOnly; SameSite=Lax; Secure')
    expect(config.emptySession).toBe('{}')
    expect(Object.isFrozen(config)).toBe(true)
  })

  it('reads SERVICE_AUTH_URL and SERVICE_AUTH_SECRET, and an explicit option beats them', () => {
    const env = { SERVICE_AUTH_URL: 'https://env.example.com/auth', SERVICE_AUTH_SECRET: 'e'.repeat(32) }
    const fromEnv = resolveConfig({ logger: false }, env)
    expect(fromEnv.base?.href).toBe('https://env.example.com/auth')
    expect(fromEnv.secrets).toEqual(['e'.repeat(32)])
    const explicit = resolveConfig(valid, env)
    expect(explicit.base?.href).toBe(BASE)
    expect(explicit.secrets).toEqual([SECRET])
  })

  it('takes "/" or an empty path in the URL as the default base path', () => {
    expect(resolveConfig({ ...valid, url: 'https://example.com' }, {}).base?.path).toBe('/api/auth')
    expect(resolveConfig({ ...valid, url: 'https://example.com/' }, {}).base?.path).toBe('/api/auth')
    expect(resolveConfig({ ...valid, url: 'https://example.com/x/authentication/' }, {}).base?.path).toBe(
      '/x/authentication',
    )
  })

  it('names the option, the bad value and the fix', () => {
    expect(configError(() => resolveConfig({ ...valid, session: { maxAge: -1 } }, {}))).toBe(
      '`session.maxAge` must be a positive number of seconds; got -1',
    )
    expect(configError(() => resolveConfig({ ...valid, url: 'ftp://x' }, {}))).toMatch(
      /`url` must be an absolute http\(s\) URL.*got "ftp:\/\/x"/,
    )
    expect(configError(() => resolveConfig({ ...valid, url: 'not a url' }, {}))).toMatch(
      /`url` must be an absolute http\(s\) URL/,
    )
    // A `;` in the path would end the Path attribute of every cookie scoped to it and start another.
    expect(configError(() => resolveConfig({ ...valid, url: 'https://x.example/a;Domain=evil/auth' }, {}))).toMatch(
      /`url` must not have a `;` in its path/,
    )
    expect(configError(() => resolveConfig({ secret: SECRET }, {}))).toMatch(/`url` is required.*SERVICE_AUTH_URL/)
    expect(configError(() => resolveConfig({ url: BASE }, {}))).toMatch(/`secret` is required.*SERVICE_AUTH_SECRET/)
    expect(configError(() => resolveConfig({ ...valid, callbacks: { session: 'x' as never } }, {}))).toBe(
      '`callbacks.session` must be a function; got "x"',
    )
    expect(configError(() => resolveConfig({ ...valid, session: { updateAge: 100, maxAge: 10 } }, {}))).toMatch(
      /updateAge/,
    )
  })

  it('rejects short secrets without echoing them', () => {
    const message = configError(() => resolveConfig({ url: BASE, secret: 'hunter2-short' }, {}))
    expect(message).toMatch(/`secret` is 13 characters long; use 32 or more/)
    expect(message).not.toContain('hunter2')
    expect(configError(() => resolveConfig({ url: BASE, secret: [SECRET, 'short'] }, {}))).toMatch(/`secret\[1\]`/)
  })

  it('suggests the nearest option for a near-miss key', () => {
    expect(configError(() => resolveConfig({ ...valid, secrets: SECRET } as never, {}))).toBe(
      'Unknown option `secrets`. Did you mean `secret`?',
    )
    expect(configError(() => resolveConfig({ ...valid, session: { maxage: 5 } } as never, {}))).toBe(
      'Unknown option `session.maxage`. Did you mean `session.maxAge`?',
    )
    expect(configError(() => resolveConfig({ ...valid, callbacks: { sesion: () => ({}) } } as never, {}))).toMatch(
      /Did you mean `callbacks.session`/,
    )
    expect(configError(() => resolveConfig({ ...valid, zzzzzzzz: 1 } as never, {}))).toMatch(
      /Known options: url, secret/,
    )
  })

  it('checks providers: made by a factory, URL-safe unique ids, email reserved', () => {
    const p = (id: string) => oidc({ id, issuer: 'https://idp.example.com', clientId: 'a', clientSecret: 'b' })
    expect(
      configError(() =>
        resolveConfig({ ...valid, providers: [{ id: 'github', name: 'GitHub', type: 'oauth' } as never] }, {}),
      ),
    ).toMatch(
      /`providers\[0\]` must be made by passportStrategy\(\), oauth2\(\), oidc\(\), email\(\), passkey\(\) or password\(\)/,
    )
    expect(configError(() => resolveConfig({ ...valid, providers: [p('git hub')] }, {}))).toMatch(
      /`providers\[0\].id` must be URL-safe/,
    )
    expect(configError(() => resolveConfig({ ...valid, providers: [p('a'), p('a')] }, {}))).toMatch(/used twice/)
    expect(configError(() => resolveConfig({ ...valid, providers: [p('email')] }, {}))).toMatch(
      /reserved for the e-mail provider/,
    )
  })

  it('refuses cookie settings that weaken security unless dangerously allowed', () => {
    const https = { ...valid, url: 'https://example.com/api/auth' }
    expect(
      configError(() => resolveConfig({ ...https, cookies: { sessionToken: { options: { secure: false } } } }, {})),
    ).toMatch(/dangerouslyAllowInsecureCookies/)
    expect(
      configError(() => resolveConfig({ ...valid, cookies: { csrfToken: { options: { sameSite: 'none' } } } }, {})),
    ).toMatch(/sameSite/)
    expect(
      configError(() =>
        resolveConfig(
          { ...https, cookies: { csrfToken: { name: '__Host-x', options: { domain: 'example.com' } } } },
          {},
        ),
      ),
    ).toMatch(/__Host-/)
    const logs: LogEntry[] = []
    const weakened = resolveConfig(
      {
        ...https,
        logger: (e) => logs.push(e),
        dangerouslyAllowInsecureCookies: true,
        cookies: { sessionToken: { options: { secure: false } } },
      },
      {},
    )
    expect(weakened.cookies.secure.sessionToken.attrs).not.toContain('Secure')
    expect(logs.filter(besidesNoProviders)).toEqual([
      expect.objectContaining({ level: 'warn', event: 'config.warning' }),
    ])
  })

  it('checks cookie attributes and says at start-up when an override widens a cookie', () => {
    expect(
      configError(() => resolveConfig({ ...valid, cookies: { sessionToken: { options: { domain: 'a;b' } } } }, {})),
    ).toMatch(/`cookies.sessionToken.options.domain` must be a host name/)
    expect(
      configError(() => resolveConfig({ ...valid, cookies: { sessionToken: { options: { path: 'x y' } } } }, {})),
    ).toMatch(/`cookies.sessionToken.options.path` must be a path/)
    expect(
      configError(() =>
        resolveConfig({ ...valid, cookies: { sessionToken: { options: { sameSite: '' as never } } } }, {}),
      ),
    ).toMatch(/must be 'lax', 'strict' or 'none'/)
    const logs: LogEntry[] = []
    resolveConfig(
      {
        ...valid,
        url: 'https://example.com/api/auth',
        logger: (e) => logs.push(e),
        cookies: { sessionToken: { options: { domain: 'example.com', sameSite: 'none' } } },
      },
      {},
    )
    expect(logs.filter(besidesNoProviders).map((entry) => entry.message)).toEqual([
      expect.stringContaining('every subdomain of example.com'),
      expect.stringContaining("'none'"),
    ])
  })

  it('uses the __Secure- prefix only for a cookie given a Domain or a Path (a __Host- cookie can have neither)', () => {
    const config = resolveConfig(
      {
        ...valid,
        url: 'https://example.com/api/auth',
        cookies: { csrfToken: { options: { domain: 'example.com' } }, sessionToken: { options: { path: '/app' } } },
      },
      {},
    )
    expect(config.cookies.secure.csrfToken.name).toBe('__Secure-auth.csrf-token')
    expect(config.cookies.secure.csrfToken.attrs).toContain('Domain=example.com')
    expect(config.cookies.secure.sessionToken.name).toBe('__Secure-auth.session-token')
    expect(config.cookies.secure.flow.name).toBe('__Host-auth.flow')
  })

  it('says at start-up when an override rules out the __Host- prefix on https (a Path, or a name of its own)', () => {
    const warnings = (cookies: object, url = 'https://example.com/api/auth') => {
      const logs: Array<{ level: string; message: string }> = []
      resolveConfig({ ...valid, url, logger: (e) => logs.push(e), cookies }, {})
      return logs
        .filter((e) => e.level === 'warn')
        .filter(besidesNoProviders)
        .map((e) => e.message)
    }
    expect(warnings({ sessionToken: { options: { path: '/app' } } })).toEqual([
      expect.stringMatching(/cookies\.sessionToken\.options\.path.*__Host-/),
    ])
    expect(warnings({ csrfToken: { name: 'xsrf' } })).toEqual([
      expect.stringMatching(/cookies\.csrfToken\.name.*__Host-/),
    ])
    expect(warnings({ csrfToken: { name: '__Host-xsrf' } })).toEqual([])
    expect(warnings({ csrfToken: { name: 'xsrf' } }, 'http://localhost:3000/api/auth')).toEqual([])
  })

  it('checks the absolute session lifetime and the deadlines', () => {
    expect(resolveConfig({ ...valid, session: { maxAge: 90 * 86400 } }, {}).session.maxLifetime).toBe(90 * 86400)
    expect(resolveConfig({ ...valid, session: { maxAge: 3600, maxLifetime: 7200 } }, {}).session.maxLifetime).toBe(7200)
    expect(configError(() => resolveConfig({ ...valid, session: { maxAge: 7200, maxLifetime: 3600 } }, {}))).toMatch(
      /session\.maxLifetime.*at least.*session\.maxAge/,
    )
    expect(configError(() => resolveConfig({ ...valid, session: { maxLifetime: -1 } }, {}))).toMatch(
      /session\.maxLifetime/,
    )
    for (const option of ['bodyTimeout', 'providerTimeout', 'storeTimeout'] as const) {
      expect(resolveConfig({ ...valid, [option]: 250 }, {})[option]).toBe(250)
      for (const bad of [0, 1.5, '10s', 10 * 60_000 + 1])
        expect(configError(() => resolveConfig({ ...valid, [option]: bad }, {}))).toMatch(
          new RegExp(`\`${option}\` must be a whole number of milliseconds`),
        )
    }
  })

  it('checks where sessions and server-side state live: strategy, store, redis and its prefix', () => {
    const store = new session.MemoryStore()
    const redis = new Redis({ lazyConnect: true })
    const database = resolveConfig({ ...valid, session: { strategy: 'database', store } }, {})
    expect(database.session).toMatchObject({ strategy: 'database', store, revocationDelay: 10 })
    expect(resolveConfig({ ...valid, redis }, {}).redis).toEqual({ client: redis, prefix: 'auth:' })
    expect(resolveConfig({ ...valid, redis, redisKeyPrefix: 'app:auth:' }, {}).redis?.prefix).toBe('app:auth:')
    expect(resolveConfig({ ...valid, session: { revocationDelay: 0 } }, {}).session.revocationDelay).toBe(0)
    const errors: Array<[AuthOptions, RegExp]> = [
      [{ session: { strategy: 'database' } }, /`session.strategy: 'database'` needs .*`redis`.*`session.store`/],
      [{ session: { strategy: 'jwt' as 'cookie' } }, /`session.strategy` must be 'cookie' or 'database'; got "jwt"/],
      [{ session: { store } }, /`session.store` is used only with `session.strategy: 'database'`/],
      [
        { session: { strategy: 'database', store: {} as never } },
        /`session.store` must be an express-session compatible store/,
      ],
      [
        { session: { revocationDelay: -1 } },
        /`session.revocationDelay` must be a whole number of seconds from 0 to 3600/,
      ],
      [{ session: { revocationDelay: 1.5 } }, /`session.revocationDelay`/],
      [
        { redis: 'redis://localhost' as never },
        /`redis` must be an ioredis client .*new Redis\(process.env.REDIS_URL\)/,
      ],
      [{ redis: { status: 'ready' } as never }, /`redis` must be an ioredis client/],
      [{ redisKeyPrefix: 'auth:' }, /`redisKeyPrefix` is set but `redis` is not/],
      [{ redis, redisKeyPrefix: '' }, /`redisKeyPrefix` must be 1 to 64/],
      [{ redis, redisKeyPrefix: 'a b' }, /`redisKeyPrefix` must be 1 to 64/],
      [{ redis, redisKeyPrefix: 'x'.repeat(65) }, /`redisKeyPrefix` must be 1 to 64/],
    ]
    for (const [options, message] of errors)
      expect(configError(() => resolveConfig({ ...valid, ...options }, {}))).toMatch(message)
    redis.disconnect()
  })

  it("warns that a store of the app's own without redis keeps the sign-out-everywhere index per process", () => {
    const logs: LogEntry[] = []
    const store = new session.MemoryStore()
    resolveConfig({ ...valid, logger: (entry) => logs.push(entry), session: { strategy: 'database', store } }, {})
    expect(logs.filter(besidesNoProviders).map((entry) => entry.message)).toEqual([
      expect.stringMatching(/this process's memory.*set `redis`/),
    ])
  })

  it('fails fast at auth() and explains app.use(auth) without the call', async () => {
    expect(() => auth({ ...valid, session: { maxAge: 0 } })).toThrow(ConfigurationError)
    const app = express()
    app.use(auth as never)
    const errors: unknown[] = []
    app.use((err: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      errors.push(err)
      res.status(500).end()
    })
    await request(app).get('/api/auth/session').expect(500)
    expect(String((errors[0] as Error).message)).toMatch(
      /without being called: write app.use\('\/api\/auth', auth\(\{ … \}\)\)/,
    )
  })
})
