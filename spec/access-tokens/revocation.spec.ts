import { performance } from 'node:perf_hooks'
import type { Server } from 'node:http'
import express from 'express'
import type Redis from 'ioredis'
import { memoryAccounts, oidc, type AuthOptions } from '../../lib'
import { requireAccessToken } from '../../lib/resource'
import { SECRET, serve, type Served } from '../support/app'
import { Browser } from '../support/browser'
import { startHostileIssuer, type HostileIssuer } from '../support/hostile-issuer'
import { sharedRedisForFile } from '../support/redis'

/**
 * The whole loop on loopback: the service issues tokens after a real OpenID Connect sign-in, two API
 * instances (each its own Redis client) accept them with requireAccessToken({ redis }), and every way
 * a session ends makes both refuse its tokens, as soon as Redis announces it: sign-out, a device
 * revoked, sign-out everywhere, a provider's back-channel logout by session and by subject,
 * `deleteUser`, and sign-out of the other sessions (the kept one asks for a new token). Another
 * session of the same user keeps working where only one ended. The time from the end's answer to
 * each instance's first refusal is measured; its p99 is asserted with a generous bound (loopback,
 * two cores shared with other specs), and printed.
 */
jest.setTimeout(120_000)

const API = 'http://localhost:4001/api'
const EVENT = 'http://schemas.openid.net/event/backchannel-logout'
const db = sharedRedisForFile('access-tokens-revocation')
const latencies: number[] = []

let issuer: HostileIssuer
let service: Served | undefined
let apis: Array<{ url: string; server: Server; client: Redis }> = []

beforeAll(async () => {
  issuer = await startHostileIssuer()
})
afterAll(async () => {
  await issuer?.stop()
  const sorted = [...latencies].sort((a, b) => a - b)
  const p99 = sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)]
  console.log(`access tokens refused after a session ended: ${sorted.length} measures, p99 ${p99?.toFixed(1)} ms`)
})
afterEach(async () => {
  issuer.reset()
  await service?.close()
  service = undefined
  for (const api of apis) {
    api.server.closeAllConnections()
    api.server.close()
    api.client.disconnect()
  }
  apis = []
})

let run = 0

/** A service and two APIs, on keys of this test's own (a provider's logout is remembered in Redis). */
async function start(options: Partial<AuthOptions>) {
  const prefix = `${db.prefix}t${++run}:`
  service = await serve({
    providers: [
      oidc({ id: 'hostile', issuer: issuer.issuer, clientId: issuer.clientId, clientSecret: issuer.clientSecret }),
    ],
    redis: db.client,
    redisKeyPrefix: prefix,
    accessTokens: { audiences: [API] },
    requestRateLimit: { limit: 1000 },
    ...options,
  })
  await startApis(prefix)
  return service
}

/** The same service after a rotation of `secret`: on the same site and keys, the new secret first. */
async function rotated(options: Partial<AuthOptions>): Promise<void> {
  const { port, origin, base } = service!
  await service!.close()
  service = await serve(
    {
      providers: [
        oidc({ id: 'hostile', issuer: issuer.issuer, clientId: issuer.clientId, clientSecret: issuer.clientSecret }),
      ],
      redis: db.client,
      redisKeyPrefix: `${db.prefix}t${run}:`,
      accessTokens: { audiences: [API] },
      requestRateLimit: { limit: 1000 },
      ...options,
      secret: ['a-new-secret-that-is-long-enough-0123456789', SECRET],
    },
    { site: { port, origin, base } },
  )
}

async function startApis(prefix: string): Promise<void> {
  for (let i = 0; i < 2; i++) {
    const client = db.redis.client()
    const app = express()
    app.get(
      '/api/me',
      requireAccessToken({ issuer: service!.base, audience: API, redis: client, redisKeyPrefix: prefix }),
      (_req, res) => {
        res.json({ sub: (res.locals as { accessToken: { sub: string } }).accessToken.sub })
      },
    )
    const server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s))
    })
    const { port } = server.address() as { port: number }
    apis.push({ url: `http://127.0.0.1:${port}/api/me`, server, client })
  }
}

/** A browser signed in through the provider session `sid`, and a token of its session. */
async function signedIn(sid: string): Promise<{ browser: Browser; token: string }> {
  issuer.behave({ idTokenClaims: { sid } })
  const browser = new Browser(service!)
  expect((await browser.signIn('hostile')).status).toBe(302)
  return { browser, token: await tokenOf(browser) }
}

async function tokenOf(browser: Browser): Promise<string> {
  const res = await browser.jar.fetch(`${service!.base}/token`, {
    method: 'POST',
    headers: { origin: service!.origin },
    body: new URLSearchParams({ csrfToken: await browser.csrfToken() }),
  })
  expect(res.status).toBe(200)
  return ((await res.json()) as { access_token: string }).access_token
}

const call = (url: string, token: string) => fetch(url, { headers: { authorization: `Bearer ${token}` } })

async function acceptedByBoth(token: string): Promise<void> {
  for (const { url } of apis) expect((await call(url, token)).status).toBe(200)
}

/** Polls both APIs from `since` until each refuses the token; the times are kept for the p99. */
async function refusedByBoth(token: string, since: number): Promise<void> {
  await Promise.all(
    apis.map(async ({ url }) => {
      for (;;) {
        const res = await call(url, token)
        if (res.status === 401) {
          expect(await res.json()).toEqual({ error: 'invalid_token', error_description: 'the session ended' })
          latencies.push(performance.now() - since)
          return
        }
        expect(res.status).toBe(200)
        if (performance.now() - since > 5000) throw new Error('still accepted 5 s after the session ended')
        await new Promise((resolve) => setTimeout(resolve, 2))
      }
    }),
  )
  expect(Math.max(...latencies.slice(-2))).toBeLessThan(1000)
}

async function providerLogout(names: { sid?: string; sub?: string }): Promise<Response> {
  const now = Math.floor(Date.now() / 1000)
  const claims = { iss: issuer.issuer, aud: issuer.clientId, iat: now, jti: `jti-${now}-${Math.random()}` }
  const token = await issuer.sign({ ...claims, events: { [EVENT]: {} }, ...names }, { typ: 'logout+jwt' })
  return fetch(`${service!.base}/backchannel-logout/hostile`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ logout_token: token }),
  })
}

describe.each([
  ['database sessions', { session: { strategy: 'database' as const }, accounts: memoryAccounts() }],
  ['cookie sessions', {}],
])('access tokens end with their session: %s', (kind, options) => {
  const database = kind === 'database sessions'

  it('sign-out: its tokens are refused by both APIs, another session of the user keeps working', async () => {
    await start(options)
    const laptop = await signedIn('laptop')
    const phone = await signedIn('phone')
    await acceptedByBoth(laptop.token)
    expect((await laptop.browser.signOut()).status).toBe(302)
    await refusedByBoth(laptop.token, performance.now())
    await acceptedByBoth(phone.token)
  })

  it('sign-out everywhere (revokeSessions): every token of the user is refused', async () => {
    const served = await start(options)
    const laptop = await signedIn('laptop')
    const phone = await signedIn('phone')
    const userId = subOf(laptop.token)
    const since = performance.now()
    await served.router.revokeSessions(userId)
    await refusedByBoth(laptop.token, since)
    await refusedByBoth(phone.token, since)
  })

  it("a provider's back-channel logout, by session and then by subject", async () => {
    await start(options)
    const laptop = await signedIn('laptop')
    const phone = await signedIn('phone')
    let since = performance.now()
    expect((await providerLogout({ sid: 'laptop' })).status).toBe(200)
    await refusedByBoth(laptop.token, since)
    if (database) await acceptedByBoth(phone.token)
    since = performance.now()
    expect((await providerLogout({ sub: 'alice' })).status).toBe(200)
    await refusedByBoth(phone.token, since)
  })

  it('a token issued before a rotation of `secret` is refused once its session signs out after it', async () => {
    await start(options)
    const laptop = await signedIn(`laptop-${run}`)
    await acceptedByBoth(laptop.token)
    await rotated(options)
    // The APIs know the old key (it is still published) and the token still works.
    await acceptedByBoth(laptop.token)
    expect((await laptop.browser.signOut()).status).toBe(302)
    await refusedByBoth(laptop.token, performance.now())
  })

  if (!database) return

  it('a device revoked (revokeSession), and deleteUser', async () => {
    const served = await start(options)
    const laptop = await signedIn('laptop')
    const phone = await signedIn('phone')
    const userId = subOf(laptop.token)
    const laptopSid = claimsOf(laptop.token).sid
    let since = performance.now()
    expect(await served.router.revokeSession(userId, laptopSid)).toBe(true)
    await refusedByBoth(laptop.token, since)
    await acceptedByBoth(phone.token)
    since = performance.now()
    expect(await served.router.deleteUser(userId)).toBe(true)
    await refusedByBoth(phone.token, since)
  })

  it('sign-out of the other sessions: theirs are refused; the kept session asks for a new token, which works', async () => {
    await start(options)
    const laptop = await signedIn('laptop')
    const phone = await signedIn('phone')
    const since = performance.now()
    expect((await laptop.browser.signOut({ others: 'true' })).status).toBe(302)
    await refusedByBoth(phone.token, since)
    await acceptedByBoth(await tokenOf(laptop.browser))
  })
})

const claimsOf = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { sub: string; sid: string }
const subOf = (token: string) => claimsOf(token).sub
