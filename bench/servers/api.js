// An API behind requireAccessToken (express-auth-service/resource, built: dist/lib/resource), as a
// service on another origin runs it: the route answers the token's claims with res.json.
// Usage: node bench/servers/api.js <plain|revocable>
// The issuer is played by this process on a second port: its GET /jwks publishes an Ed25519 key
// derived as the package derives them, and GET /bench-token (not measured) signs a token with it.
// `revocable`: with the issuer's Redis (BENCH_REDIS_URL, BENCH_REDIS_PREFIX), each token is checked
// against the session ends the service marks there, through Redis's client-side cache.
const express = require('express')
const { requireAccessToken } = require('../../dist/lib/resource')
const { derivedSigningKey, signJwt } = require('../../dist/lib/infra/crypto/signing-keys')
const { ADDRESS, listen } = require('./listen')

const variant = process.argv[2] ?? 'plain'
if (!['plain', 'revocable'].includes(variant)) throw new Error(`unknown variant ${variant}`)
const AUDIENCE = 'http://localhost:4000/api'
const key = derivedSigningKey(process.env.BENCH_SECRET ?? 'a-bench-secret-that-is-long-enough-0123456789', 'EdDSA')

const issuer = express()
issuer.get('/api/auth/jwks', (_req, res) => res.json({ keys: [key.publicJwk] }))
const issuerServer = issuer.listen(0, '127.0.0.1', () => {
  const issuerUrl = `http://127.0.0.1:${issuerServer.address().port}/api/auth`
  const options = { issuer: issuerUrl, audience: AUDIENCE }
  if (variant === 'revocable') {
    const Redis = require('ioredis')
    options.redis = new Redis(process.env.BENCH_REDIS_URL)
    options.redisKeyPrefix = process.env.BENCH_REDIS_PREFIX
  }
  const app = express()
  app.get('/bench-token', (_req, res) => {
    const now = Math.floor(Date.now() / 1000)
    const claims = {
      iss: issuerUrl,
      sub: `email:${ADDRESS}`,
      aud: AUDIENCE,
      client_id: 'http://localhost:3000',
      iat: now,
      exp: now + 3600,
      jti: 'bench-token-0000000000',
      sid: 'bench-session-handle-000000000000000000000',
      auth_time: now,
    }
    res.json({ token: signJwt(key, 'at+jwt', claims) })
  })
  app.get('/api/orders', requireAccessToken(options), (_req, res) => {
    res.json(res.locals.accessToken)
  })
  listen(app)
})
