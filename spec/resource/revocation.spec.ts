import { createHash } from 'node:crypto'
import express from 'express'
import type { Redis } from 'ioredis'
import request from 'supertest'
import { requireAccessToken } from '../../lib/resource'
import { monitorCommands, sharedRedis, type SharedRedis } from '../support/redis'
import { AUDIENCE, startIssuer, testKey, type TokenIssuer } from '../support/token-issuer'

/**
 * Tokens of ended sessions, against a real Redis shared by two API instances (two
 * `requireAccessToken()`, each with its own ioredis client) and a third client standing for the
 * auth service: once `{prefix}ended:{sid}` is set, or the user's revocation time (`{prefix}rev:
 * {SHA-256 of the user id}`) passes a token's `iat`, both instances refuse the token as soon as
 * Redis announces the change (measured and printed; each under 1 s); while nothing changes, they
 * answer without a command to Redis; a Redis that cannot be asked is a 503, never a token let through.
 */
jest.setTimeout(60_000)

const ROUNDS = 20
const SEEN_WITHIN_MS = 1000

const ed = testKey('EdDSA')
let issuer: TokenIssuer
let redis: SharedRedis
let prefix: string
let writer: Redis
let clients: Redis[]
let apps: express.Express[]

function api(client: Redis) {
  const app = express()
  app.get(
    '/me',
    requireAccessToken({ issuer: issuer.issuer, audience: AUDIENCE, redis: client, redisKeyPrefix: prefix }),
    (_req, res) => void res.json({ ok: true }),
  )
  return app
}

const call = (app: express.Express, token: string) => request(app).get('/me').set('Authorization', `Bearer ${token}`)
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const revKey = (userId: string) => `${prefix}rev:${createHash('sha256').update(userId).digest('base64url')}`

beforeAll(async () => {
  issuer = await startIssuer(ed)
  redis = await sharedRedis()
  prefix = redis.prefix('resource')
  writer = redis.client()
  clients = [redis.client(), redis.client()]
  apps = clients.map(api)
  await Promise.all(clients.map((client) => client.ping()))
  // Each instance's tracking connection is up (it is made once its client is ready).
  await sleep(500)
})

afterAll(async () => {
  await redis?.deleteKeys(prefix)
  await redis?.close()
  await issuer?.close()
})

/** Calls both instances until each refuses `token` as an ended session; ms from `since` per instance. */
async function refusedAfter(token: string, since: number): Promise<number[]> {
  return Promise.all(
    apps.map(async (app) => {
      while (performance.now() - since < 3 * SEEN_WITHIN_MS) {
        const res = await call(app, token)
        if (res.status === 401) {
          expect(res.headers['www-authenticate']).toBe(
            'Bearer error="invalid_token", error_description="the session ended"',
          )
          return performance.now() - since
        }
        expect(res.status).toBe(200)
      }
      return Infinity
    }),
  )
}

function report(what: string, times: number[]) {
  const sorted = [...times].sort((a, b) => a - b)
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!.toFixed(1)
  process.stdout.write(
    `${what}: refused by both instances after p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${at(1)} ms (${times.length} refusals)\n`,
  )
  expect(sorted.filter((ms) => ms > SEEN_WITHIN_MS)).toEqual([])
}

it('a session that ends is refused by both instances as soon as Redis announces it', async () => {
  const times: number[] = []
  for (let round = 0; round < ROUNDS; round++) {
    const sid = `sid-${round}-${Math.random()}`
    const token = issuer.token(ed, { sid })
    // Accepted, and so held, by both.
    for (const app of apps) for (let i = 0; i < 2; i++) expect((await call(app, token)).status).toBe(200)
    const ended = performance.now()
    await writer.set(`${prefix}ended:${sid}`, '1', 'EX', 600)
    times.push(...(await refusedAfter(token, ended)))
  }
  report('session ended', times)
})

it("a user's revocation time refuses every token issued before it, and none after", async () => {
  const times: number[] = []
  for (let round = 0; round < ROUNDS; round++) {
    const userId = `user-${round}-${Math.random()}`
    const now = Math.floor(Date.now() / 1000)
    const before = issuer.token(ed, { sub: userId, iat: now - 10 })
    const after = issuer.token(ed, { sub: userId, iat: now + 1 })
    for (const app of apps) for (let i = 0; i < 2; i++) expect((await call(app, before)).status).toBe(200)
    const revoked = performance.now()
    await writer.set(revKey(userId), String(now + 1), 'EX', 600)
    times.push(...(await refusedAfter(before, revoked)))
    for (const app of apps) expect((await call(app, after)).status).toBe(200)
  }
  report('user revoked', times)
})

it('answers tokens again and again without a command to Redis', async () => {
  const tokens = [issuer.token(ed, { sub: 'steady-1' }), issuer.token(ed, { sub: 'steady-2' })]
  for (const app of apps) for (const token of tokens) expect((await call(app, token)).status).toBe(200)
  const reads: string[] = []
  const monitor = await monitorCommands(redis.client(), (args) => {
    if (args.some((arg) => arg.startsWith(prefix))) reads.push(args.join(' '))
  })
  try {
    for (let i = 0; i < 50; i++)
      for (const app of apps) for (const token of tokens) expect((await call(app, token)).status).toBe(200)
    // MONITOR shows a command once Redis ran it: whatever the answers caused is there by now.
    await writer.ping()
    expect(reads).toEqual([])
  } finally {
    monitor.disconnect()
  }
})

it('a Redis it cannot ask is a 503 with Retry-After: a token not held, and once its connections are gone, one held', async () => {
  const client = redis.client()
  const app = api(client)
  await client.ping()
  await sleep(300)
  const held = issuer.token(ed)
  expect((await call(app, held)).status).toBe(200)
  client.disconnect()
  // Never read: Redis must be asked, and cannot be.
  const res = await call(app, issuer.token(ed))
  expect(res.status).toBe(503)
  expect(res.headers['retry-after']).toBe('5')
  expect(res.body).toEqual({ error: 'temporarily_unavailable' })
  // Held: answered from memory only while the tracking connection vouches for it (it may for a
  // moment: Redis would have announced a change on it), never once the client has ended.
  while (client.status !== 'end') await sleep(10)
  await sleep(50)
  expect((await call(app, held)).status).toBe(503)
})

it('a token without sid is refused when ended sessions are checked', async () => {
  const res = await call(apps[0]!, issuer.token(ed, { sid: undefined }))
  expect(res.status).toBe(401)
})
