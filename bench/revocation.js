// How soon APIs refuse an access token after its session ends: the service (dist/lib, database
// sessions in Redis, accessTokens) and two APIs behind requireAccessToken({ redis }), each in a
// process of its own with its own Redis client, on loopback. Each round signs in by e-mail, asks
// for a token, checks both APIs accept it, signs out, then polls both APIs (every millisecond) until
// each refuses; the time from sign-out's answer to each refusal is one measure.
// Usage: node bench/revocation.js (after npm run build); BENCH_REVOCATION_ROUNDS (default 100).
const { fork } = require('node:child_process')
const { performance } = require('node:perf_hooks')
const { startRedis } = require('./support/redis')

const ROUNDS = Number(process.env.BENCH_REVOCATION_ROUNDS ?? 100)
const FORM = { 'content-type': 'application/x-www-form-urlencoded' }
const pairs = (res) =>
  res.headers
    .getSetCookie()
    .map((line) => line.split(';', 1)[0])
    .filter((pair) => !pair.endsWith('='))

/** A child running `role` (this file, `service` or `api`): resolves with what it sends first. */
function child(role, env) {
  const proc = fork(__filename, [role], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  return new Promise((resolve, reject) => {
    proc.once('message', (message) => resolve({ proc, message }))
    proc.once('exit', (code) => reject(new Error(`${role} exited with ${code}`)))
  })
}

async function serviceRole() {
  const express = require('express')
  const Redis = require('ioredis')
  const { auth, email } = require('../dist/lib')
  const links = []
  const app = express()
  const server = app.listen(0, '127.0.0.1', () => {
    const base = `http://localhost:${server.address().port}/api/auth`
    app.use(
      '/api/auth',
      auth({
        url: base,
        secret: 'a-bench-secret-that-is-long-enough-0123456789',
        logger: false,
        redis: new Redis(process.env.BENCH_REDIS_URL),
        redisKeyPrefix: process.env.BENCH_REDIS_PREFIX,
        session: { strategy: 'database' },
        requestRateLimit: { limit: 1_000_000 },
        accessTokens: { audiences: ['http://localhost:4000/api'] },
        providers: [
          email({
            from: 'auth@localhost',
            // One client address signs in once a round.
            rateLimits: { ipPerHour: 100_000 },
            sendVerificationRequest: ({ url }) => void links.push(url),
          }),
        ],
      }),
    )
    app.get('/last-link', (_req, res) => res.json({ url: links.at(-1) ?? null }))
    process.send({ base })
  })
}

async function apiRole() {
  const express = require('express')
  const Redis = require('ioredis')
  const { requireAccessToken } = require('../dist/lib/resource')
  const app = express()
  const guard = requireAccessToken({
    issuer: process.env.BENCH_ISSUER,
    audience: 'http://localhost:4000/api',
    redis: new Redis(process.env.BENCH_REDIS_URL),
    redisKeyPrefix: process.env.BENCH_REDIS_PREFIX,
  })
  app.get('/api/me', guard, (_req, res) => res.json({ sub: res.locals.accessToken.sub }))
  const server = app.listen(0, '127.0.0.1', () =>
    process.send({ url: `http://127.0.0.1:${server.address().port}/api/me` }),
  )
}

async function signIn(base, address) {
  const csrfRes = await fetch(`${base}/csrf`)
  const { csrfToken } = await csrfRes.json()
  const csrf = pairs(csrfRes).join('; ')
  await fetch(`${base}/signin/email`, {
    method: 'POST',
    redirect: 'manual',
    headers: { ...FORM, cookie: csrf },
    body: new URLSearchParams({ csrfToken, email: address, callbackUrl: '/' }),
  })
  const { url } = await (await fetch(`${base.replace('/api/auth', '')}/last-link`)).json()
  const values = new URL(url).searchParams
  const confirmed = await fetch(`${base}/callback/email`, {
    method: 'POST',
    redirect: 'manual',
    headers: { ...FORM, cookie: csrf },
    body: new URLSearchParams({ token: values.get('token'), email: values.get('email'), callbackUrl: '/', csrfToken }),
  })
  if (confirmed.status !== 302 || !String(confirmed.headers.get('location')).endsWith('/'))
    throw new Error(`confirm answered ${confirmed.status} ${confirmed.headers.get('location')}`)
  const cookie = [csrf, ...pairs(confirmed)].join('; ')
  const tokenRes = await fetch(`${base}/token`, {
    method: 'POST',
    headers: { ...FORM, cookie },
    body: new URLSearchParams({ csrfToken }),
  })
  if (tokenRes.status !== 200) throw new Error(`POST /token answered ${tokenRes.status}`)
  return { cookie, csrfToken, token: (await tokenRes.json()).access_token }
}

async function main() {
  const redis = await startRedis()
  const env = { BENCH_REDIS_URL: redis.url, BENCH_REDIS_PREFIX: redis.prefix('revocation') }
  const service = await child('service', env)
  const base = service.message.base
  const apis = await Promise.all([0, 1].map(() => child('api', { ...env, BENCH_ISSUER: base })))
  const urls = apis.map(({ message }) => message.url)
  const call = (url, token) => fetch(url, { headers: { authorization: `Bearer ${token}` } }).then((res) => res.status)
  const measures = []
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const { cookie, csrfToken, token } = await signIn(base, `bench-${round}@example.com`)
      for (const url of urls) if ((await call(url, token)) !== 200) throw new Error('a fresh token was refused')
      const out = await fetch(`${base}/signout`, {
        method: 'POST',
        redirect: 'manual',
        headers: { ...FORM, cookie },
        body: new URLSearchParams({ csrfToken }),
      })
      if (out.status !== 302) throw new Error(`sign-out answered ${out.status}`)
      const since = performance.now()
      await Promise.all(
        urls.map(async (url) => {
          while ((await call(url, token)) === 200) {
            if (performance.now() - since > 5000) throw new Error('still accepted 5 s after sign-out')
            await new Promise((resolve) => setTimeout(resolve, 1))
          }
          measures.push(performance.now() - since)
        }),
      )
    }
  } finally {
    for (const { proc } of [service, ...apis]) proc.kill()
    await redis.stop()
  }
  measures.sort((a, b) => a - b)
  const at = (q) => measures[Math.min(measures.length - 1, Math.ceil(measures.length * q) - 1)].toFixed(1)
  console.log(
    `access token refused after sign-out, 2 API processes, ${measures.length} measures: p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${at(1)} ms`,
  )
}

const role = process.argv[2]
if (role === 'service') void serviceRole()
else if (role === 'api') void apiRole()
else
  main().catch((error) => {
    console.error(error)
    process.exitCode = 1
  })
