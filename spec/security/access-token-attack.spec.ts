import type { Server } from 'node:http'
import express from 'express'
import type Redis from 'ioredis'
import { memoryAccounts, oidc, type AuthOptions } from '../../lib'
import { requireAccessToken } from '../../lib/resource'
import { serve, type Served } from '../support/app'
import { Browser } from '../support/browser'
import { startHostileIssuer, type HostileIssuer } from '../support/hostile-issuer'
import { sharedRedisForFile } from '../support/redis'

/**
 * Attacks on access tokens from outside (issue 35), with real HTTP on loopback: the service after a
 * real OpenID Connect sign-in, an API with requireAccessToken({ redis }) on the same Redis. One `it`
 * per finding; what held is in the attack's report.
 */
jest.setTimeout(60_000)

const API = 'http://localhost:4001/api'
/** requireAccessToken's largest (and default) clockTolerance, in seconds. */
const TOLERANCE = 60
const db = sharedRedisForFile('access-token-attack')

let issuer: HostileIssuer
let service: Served | undefined
let api: { server: Server; client: Redis; url: string } | undefined
let run = 0

beforeAll(async () => {
  issuer = await startHostileIssuer()
})
afterAll(() => issuer?.stop())
afterEach(async () => {
  issuer.reset()
  await service?.close()
  service = undefined
  api?.server.closeAllConnections()
  api?.server.close()
  api?.client.disconnect()
  api = undefined
})

/** The service and one API on keys of this test's own; the prefix they share. */
async function start(options: Partial<AuthOptions>): Promise<{ served: Served; prefix: string }> {
  const prefix = `${db.prefix}t${++run}:`
  const served = await serve({
    providers: [
      oidc({ id: 'hostile', issuer: issuer.issuer, clientId: issuer.clientId, clientSecret: issuer.clientSecret }),
    ],
    redis: db.client,
    redisKeyPrefix: prefix,
    requestRateLimit: { limit: 1000 },
    ...options,
  })
  service = served
  const client = db.redis.client()
  const app = express()
  app.get(
    '/api/me',
    requireAccessToken({ issuer: served.base, audience: API, redis: client, redisKeyPrefix: prefix }),
    (_req, res) => {
      res.json({ ok: true })
    },
  )
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s))
  })
  api = { server, client, url: `http://127.0.0.1:${(server.address() as { port: number }).port}/api/me` }
  return { served, prefix }
}

async function signedIn(served: Served): Promise<Browser> {
  const browser = new Browser(served)
  expect((await browser.signIn('hostile')).status).toBe(302)
  return browser
}

async function tokenOf(served: Served, browser: Browser): Promise<string> {
  const res = await browser.jar.fetch(`${served.base}/token`, {
    method: 'POST',
    headers: { origin: served.origin },
    body: new URLSearchParams({ csrfToken: await browser.csrfToken() }),
  })
  expect(res.status).toBe(200)
  return ((await res.json()) as { access_token: string }).access_token
}

const claimsOf = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { sid: string; exp: number }

/** The API's answer to `token`, its clock reading `at` (ms since the epoch) while it checks it. */
async function callAt(token: string, at?: number): Promise<number> {
  const clock = at === undefined ? null : jest.spyOn(Date, 'now').mockReturnValue(at)
  try {
    return (await fetch(api!.url, { headers: { authorization: `Bearer ${token}` } })).status
  } finally {
    clock?.mockRestore()
  }
}

describe('access tokens: attacks from outside', () => {
  it("a signed-out session's token is accepted again by an API whose clock lags within its clockTolerance, once the end mark expires", async () => {
    const options = { session: { strategy: 'database' as const }, accounts: memoryAccounts() }
    const { served, prefix } = await start({ ...options, accessTokens: { audiences: [API], maxAge: 10 } })
    const browser = await signedIn(served)
    const token = await tokenOf(served, browser)
    expect(await callAt(token)).toBe(200)
    expect((await browser.signOut()).status).toBe(302)
    expect(await callAt(token)).toBe(401)
    // The end mark goes when Redis expires it, and with it the API's only reason to refuse the token.
    const mark = `${prefix}ended:${claimsOf(token).sid}`
    const markGoneAt = Date.now() + (await db.client.pttl(mark))
    // An API whose clock is behind by less than its clockTolerance accepts fresh tokens (their `iat`
    // is within the tolerance), and this one until `exp` + tolerance by its own clock.
    const lag = (TOLERANCE - 1) * 1000
    // The mark expiring (what Redis does at markGoneAt), that API checks the token at that moment.
    await db.client.del(mark)
    expect(await callAt(token, markGoneAt - lag)).toBe(401)
  })
})
