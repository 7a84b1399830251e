// The package for the soak (bench/soak.js) and the cost measurements (bench/costs.js): like
// ./package.js, but many users sign in (the e-mail link is printed with its address, so that
// sign-ins can run side by side, and the e-mail rate limits are raised), and two routes of the app:
//   POST /revoke  revokeSessions() for the user of the request's session cookie; answers { ms }
//   GET /memory   process.memoryUsage() after a full collection (node --expose-gc), else as it is
// Usage: node [--expose-gc] bench/servers/scale.js <cookie|database>
// BENCH_REDIS_URL (or BENCH_REDIS_SENTINELS and BENCH_REDIS_NAME) and BENCH_REDIS_PREFIX name the Redis and the keys.
const express = require('express')
const { auth, email } = require('../../dist/lib')
const { listen } = require('./listen')

const strategy = process.argv[2] ?? 'cookie'
if (strategy !== 'cookie' && strategy !== 'database') throw new Error(`unknown strategy ${strategy}`)
const MANY = 1_000_000
const options = {
  url: 'http://localhost/api/auth',
  secret: process.env.BENCH_SECRET,
  logger: false,
  session: { strategy },
  // Every sign-in comes from 127.0.0.1.
  requestRateLimit: { limit: MANY, windowSeconds: 60 },
  providers: [
    email({
      from: 'auth@localhost',
      rateLimits: { addressPerMinute: MANY, addressPerHour: MANY, ipPerHour: MANY },
      // `LINK <address> <tag> <url>`: the tag is the `try` of the callback URL (support/scale.js), so
      // that the bench can tell the links of one address apart.
      sendVerificationRequest: ({ identifier, url }) => {
        const callback = new URL(url).searchParams.get('callbackUrl') ?? ''
        const tag = /[?&]try=([0-9a-f]+)/.exec(callback)?.[1] ?? '-'
        process.stdout.write(`LINK ${identifier} ${tag} ${url}\n`)
      },
    }),
  ],
}
if (process.env.BENCH_REDIS_URL || process.env.BENCH_REDIS_SENTINELS) {
  const Redis = require('ioredis')
  // BENCH_REDIS_SENTINELS (host:port,…) and BENCH_REDIS_NAME: the primary through Redis Sentinel.
  const sentinels = process.env.BENCH_REDIS_SENTINELS?.split(',').map((node) => {
    const [host, port] = node.split(':')
    return { host, port: Number(port) }
  })
  options.redis = sentinels
    ? new Redis({ sentinels, name: process.env.BENCH_REDIS_NAME })
    : new Redis(process.env.BENCH_REDIS_URL)
  options.redis.on('error', () => undefined) // the soak stops Redis on purpose; the package logs nothing (logger: false)
  options.redisKeyPrefix = process.env.BENCH_REDIS_PREFIX
}

const router = auth(options)
const app = express()
app.use('/api/auth', router)
app.post('/revoke', (req, res) => {
  const started = process.hrtime.bigint()
  router
    .getSessionRecord(req)
    .then(async (record) => {
      if (!record) return void res.status(404).json({ error: 'NoSession' })
      await router.revokeSessions(record.userId)
      res.json({ ms: Number(process.hrtime.bigint() - started) / 1e6 })
    })
    .catch((error) => res.status(error.status ?? 500).json({ error: error.code ?? 'Error' }))
})
app.get('/memory', (req, res) => {
  globalThis.gc?.()
  res.json({ ...process.memoryUsage(), collected: typeof globalThis.gc === 'function' })
})
listen(app)
