import express from 'express'
import request from 'supertest'
import { auth, oidc, type LogEntry } from '../../lib'
import { makeApp, testOptions } from '../support/app'

/**
 * A deployment mistake that only a request shows is logged once, as a `config.warning` naming its
 * cause and its fix: not per request, and not when the set-up is right.
 */
const PROVIDER = oidc({ id: 'idp', issuer: 'https://idp.example.com', clientId: 'c', clientSecret: 's' })
const ON_URL = 'localhost:3000'

function warnings(logs: LogEntry[], pattern: RegExp): LogEntry[] {
  return logs.filter((entry) => entry.event === 'config.warning' && pattern.test(entry.message))
}

describe('behind a proxy that Express does not trust', () => {
  it('warns once that every user shares the proxy address, naming trust proxy', async () => {
    const { app, logs } = makeApp({ providers: [PROVIDER] })
    for (const client of ['203.0.113.7', '203.0.113.8', '203.0.113.9'])
      await request(app).get('/api/auth/csrf').set('Host', ON_URL).set('X-Forwarded-For', client).expect(200)
    expect(warnings(logs, /X-Forwarded-For/)).toEqual([
      expect.objectContaining({ level: 'warn', message: expect.stringMatching(/app\.set\('trust proxy'/) }),
    ])
  })

  it('says nothing once the app trusts its proxy, or when no request is forwarded', async () => {
    const { logs, ...options } = testOptions({ providers: [PROVIDER] })
    const app = express()
    app.set('trust proxy', 'loopback')
    app.use('/api/auth', auth(options))
    await request(app).get('/api/auth/csrf').set('Host', ON_URL).set('X-Forwarded-For', '203.0.113.7').expect(200)
    const direct = makeApp({ providers: [PROVIDER] })
    await request(direct.app).get('/api/auth/csrf').set('Host', ON_URL).expect(200)
    expect([...logs, ...direct.logs]).toEqual([])
  })
})

describe('a request on another host or port than `url`', () => {
  it('warns once, naming the host the request came to and `url`', async () => {
    const { app, logs } = makeApp({ providers: [PROVIDER] })
    await request(app).get('/api/auth/signin').set('Host', 'localhost:4000').expect(200)
    await request(app).get('/api/auth/signin').set('Host', 'localhost:4000').expect(200)
    await request(app).get('/api/auth/csrf').set('Host', 'localhost:5000').expect(200)
    expect(warnings(logs, /host/)).toEqual([
      expect.objectContaining({
        host: 'localhost:4000',
        message: expect.stringMatching(/"localhost:4000".*http:\/\/localhost:3000.*set `url`/),
      }),
    ])
  })

  it("quotes at most 100 characters of a client's Host header", async () => {
    const { app, logs } = makeApp({ providers: [PROVIDER] })
    const long = `${'a'.repeat(60)}.${'b'.repeat(60)}.example`
    await request(app).get('/api/auth/csrf').set('Host', long).expect(200)
    const [entry] = warnings(logs, /host/)
    expect(entry?.host).toBe(long.slice(0, 100))
    expect(entry?.message).not.toContain(long)
  })

  it('says nothing for requests on `url`s host, its default port written out or not', async () => {
    const { app, logs } = makeApp({ providers: [PROVIDER], url: 'https://example.com/api/auth' })
    await request(app).get('/api/auth/csrf').set('Host', 'example.com').expect(200)
    await request(app).get('/api/auth/csrf').set('Host', 'EXAMPLE.com:443').expect(200)
    expect(logs).toEqual([])
  })
})

describe('a mount at a suffix of the base path', () => {
  it('says once, at the first request, where requireAuth() and the pages redirect', async () => {
    const { app, logs } = makeApp({ providers: [PROVIDER], url: 'https://example.com/app/api/auth' }, '/api/auth')
    await request(app).get('/api/auth/csrf').set('Host', 'example.com').expect(200)
    await request(app).get('/api/auth/providers').set('Host', 'example.com').expect(200)
    expect(logs).toEqual([
      expect.objectContaining({
        event: 'config.warning',
        message: expect.stringMatching(/mounted at "\/api\/auth".*requireAuth\(\).*"\/app\/api\/auth\/…"/),
      }),
    ])
  })

  it('says nothing when mounted at the base path or at the root', async () => {
    const at = makeApp({ providers: [PROVIDER] })
    const root = makeApp({ providers: [PROVIDER] }, null)
    await request(at.app).get('/api/auth/csrf').set('Host', ON_URL).expect(200)
    await request(root.app).get('/api/auth/csrf').set('Host', ON_URL).expect(200)
    expect([...at.logs, ...root.logs]).toEqual([])
  })
})

describe('no providers', () => {
  it('warns at auth(), before any request, that the sign-in page has no way in', () => {
    const { logs } = makeApp()
    expect(logs).toEqual([
      expect.objectContaining({
        level: 'warn',
        event: 'config.warning',
        message: expect.stringMatching(/`providers` is empty.*add oidc\(\)/),
      }),
    ])
    expect(makeApp({ providers: [PROVIDER] }).logs).toEqual([])
  })
})
