import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import express from 'express'
import request from 'supertest'
import { requireAccessToken } from '../../lib/resource'
import { keySet, REFETCH_MS, WAIT_MS } from '../../lib/resource/key-set'
import { AUDIENCE, startIssuer, testKey, type TokenIssuer } from '../support/token-issuer'

/**
 * The key set `requireAccessToken()` verifies with, against a JWKS served on loopback: fetched once
 * and kept; a token naming a key not held fetches the set again at most once every 30 s, however
 * many such tokens come; a JWKS that accepts the connection and never answers costs a request
 * WAIT_MS (3 s) at most, answered 503 with Retry-After, with one fetch shared by every request
 * waiting; a JWKS that answers garbage, an error or too much is the same as none.
 */
jest.setTimeout(30_000)

const ed = testKey('EdDSA')
let issuer: TokenIssuer

beforeEach(async () => {
  issuer = await startIssuer(ed)
})

afterEach(() => issuer?.close())

function api(jwksUri?: string) {
  const app = express()
  app.get(
    '/me',
    requireAccessToken({ issuer: issuer.issuer, audience: AUDIENCE, ...(jwksUri ? { jwksUri } : {}) }),
    (_req, res) => void res.json({ ok: true }),
  )
  return app
}

const call = (app: express.Express, token: string) => request(app).get('/me').set('Authorization', `Bearer ${token}`)

it('fetches the key set once and keeps it', async () => {
  const app = api()
  for (let i = 0; i < 20; i++) expect((await call(app, issuer.token(ed))).status).toBe(200)
  expect(issuer.hits()).toBe(1)
})

it('a token naming a key not held fetches the set again, at most once every 30 s', async () => {
  const app = api()
  expect((await call(app, issuer.token(ed))).status).toBe(200)
  const next = testKey('ES256')
  issuer.publish(ed, next)
  // Fetched less than 30 s ago: not fetched again, however many unknown kids come.
  for (let i = 0; i < 10; i++) expect((await call(app, issuer.token(testKey('EdDSA')))).status).toBe(401)
  expect((await call(app, issuer.token(next))).status).toBe(401)
  expect(issuer.hits()).toBe(1)
})

it('the key set refetches at most every REFETCH_MS, on a clock the spec moves', async () => {
  let now = 1_000_000
  const keys = keySet(`${issuer.issuer}/jwks`, () => now)
  expect(keys.current()).toBeNull()
  expect(await keys.refresh()).toBe(true)
  expect(keys.has(ed.kid)).toBe(true)
  const next = testKey('ES256')
  issuer.publish(ed, next)
  expect(await keys.refresh()).toBe(false)
  now += REFETCH_MS - 1
  expect(await keys.refresh()).toBe(false)
  expect(keys.has(next.kid)).toBe(false)
  expect(issuer.hits()).toBe(1)
  now += 1
  expect(await keys.refresh()).toBe(true)
  expect(keys.has(next.kid)).toBe(true)
  expect(issuer.hits()).toBe(2)
})

it('a new key is used once the set is fetched again (30 s after the last fetch)', async () => {
  let now = 1_000_000
  const keys = keySet(`${issuer.issuer}/jwks`, () => now)
  await keys.refresh()
  const next = testKey('EdDSA')
  issuer.publish(ed, next)
  now += REFETCH_MS
  expect(await keys.refresh()).toBe(true)
  expect(keys.current()?.map((key) => key.kid)).toEqual([ed.kid, next.kid])
})

it('a JWKS that never answers: each request is answered 503 within the wait, one fetch for all', async () => {
  issuer.hang()
  const app = api()
  const started = performance.now()
  const answers = await Promise.all(Array.from({ length: 5 }, () => call(app, issuer.token(ed))))
  const took = performance.now() - started
  process.stdout.write(`hanging JWKS: 5 requests answered after ${took.toFixed(0)} ms\n`)
  for (const res of answers) {
    expect(res.status).toBe(503)
    expect(res.headers['retry-after']).toBe('5')
    expect(res.body).toEqual({ error: 'temporarily_unavailable' })
  }
  expect(took).toBeGreaterThanOrEqual(WAIT_MS - 50)
  expect(took).toBeLessThan(WAIT_MS + 1500)
  expect(issuer.hits()).toBe(1)
})

describe.each([
  ['an error', (res: import('node:http').ServerResponse) => res.writeHead(500).end('{"keys":[]}')],
  ['no JSON', (res: import('node:http').ServerResponse) => res.writeHead(200).end('<html>')],
  ['no key set', (res: import('node:http').ServerResponse) => res.writeHead(200).end('{"keys":{}}')],
  [
    'too much',
    (res: import('node:http').ServerResponse) => res.writeHead(200).end(`{"keys":[${'{},'.repeat(40_000)}{}]}`),
  ],
])('a JWKS that answers %s', (_what, answer) => {
  it('is no key set: 503 with Retry-After', async () => {
    const server = createServer((_req, res) => answer(res))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const res = await call(api(`http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`), issuer.token(ed))
      expect(res.status).toBe(503)
      expect(res.headers['retry-after']).toBe('5')
    } finally {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  })
})

it('keys without alg, and encryption keys, are never used', async () => {
  const { alg: _alg, ...noAlg } = ed.jwk
  for (const jwk of [noAlg, { ...ed.jwk, use: 'enc' }]) {
    const server = createServer((_req, res) => res.writeHead(200).end(JSON.stringify({ keys: [jwk] })))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const res = await call(api(`http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`), issuer.token(ed))
      expect(res.status).toBe(401)
    } finally {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  }
})
