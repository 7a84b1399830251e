// This package, built (dist/lib), mounted the way the README mounts it.
// Usage: node bench/servers/package.js <default|database|cluster|revocation|callback|renewal|tokens|password|access>
// With `database`, `revocation` and `tokens`: BENCH_REDIS_URL and BENCH_REDIS_PREFIX name the Redis and the keys;
// with `cluster`, BENCH_REDIS_CLUSTER (host:port,…) names the Cluster's nodes.
// `tokens`: database sessions, and a provider `stub` (./oauth-stub.js) with `tokens: true`; GET /token
// answers getAccessToken(req, 'stub').
const express = require('express')
const { auth, email, memoryAccounts, oauth2, password } = require('../../dist/lib')
const { ADDRESS, listen } = require('./listen')

const variant = process.argv[2] ?? 'default'
const options = {
  url: 'http://localhost/api/auth',
  secret: process.env.BENCH_SECRET,
  logger: false,
  providers: [
    // Listed by GET /providers; never contacted.
    oauth2({
      id: 'github',
      name: 'GitHub',
      clientId: 'bench',
      clientSecret: 'bench-secret',
      authorizationUrl: 'https://github.com/login/oauth/authorize',
      tokenUrl: 'https://github.com/login/oauth/access_token',
      userinfoUrl: 'https://api.github.com/user',
    }),
    // How the bench signs in: the link goes to stdout, and the bench follows it over HTTP.
    email({ from: 'auth@localhost', sendVerificationRequest: ({ url }) => void process.stdout.write(`LINK ${url}\n`) }),
  ],
}
// `access`: cookie sessions and accessTokens (POST /api/auth/token).
if (variant === 'access') options.accessTokens = { audiences: ['http://localhost:4000/api'] }
if (variant === 'database' || variant === 'revocation' || variant === 'tokens') {
  // Required here only: the other variants' RSS should not carry a Redis client they never use.
  const Redis = require('ioredis')
  options.redis = new Redis(process.env.BENCH_REDIS_URL)
  options.redisKeyPrefix = process.env.BENCH_REDIS_PREFIX
}
if (variant === 'cluster') {
  const { Cluster } = require('ioredis')
  const nodes = process.env.BENCH_REDIS_CLUSTER.split(',').map((node) => {
    const [host, port] = node.split(':')
    return { host, port: Number(port) }
  })
  options.redis = new Cluster(nodes)
  options.redisKeyPrefix = process.env.BENCH_REDIS_PREFIX
}
if (variant === 'database' || variant === 'cluster' || variant === 'tokens') options.session = { strategy: 'database' }
// The example of docs/options.md: the client also sees the user id.
if (variant === 'callback')
  options.callbacks = { session: ({ session, record }) => ({ ...session, userId: record.userId }) }
// Due for renewal one second after sign-in, and then on every request (the bench keeps the first cookie).
if (variant === 'renewal') options.session = { maxAge: 3600, updateAge: 1 }
// `password`: password() at its default parameters (argon2id, 19 MiB, 2 passes), accounts in memory, no
// breached check (it would call the internet), and no request limit (the bench is one client address).
if (variant === 'password') {
  options.providers.push(password({ breached: false }))
  options.accounts = memoryAccounts()
  options.requestRateLimit = { limit: 1_000_000 }
}
const VARIANTS = ['default', 'database', 'cluster', 'revocation', 'callback', 'renewal', 'tokens', 'password', 'access']
if (!VARIANTS.includes(variant)) throw new Error(`unknown variant ${variant}`)

async function main() {
  if (variant === 'tokens') {
    const stub = await require('./oauth-stub').startOAuthStub()
    options.providers.push(
      oauth2({
        id: 'stub',
        clientId: 'bench',
        clientSecret: 'bench-secret',
        authorizationUrl: `${stub}/authorize`,
        tokenUrl: `${stub}/token`,
        profile: () => ({ id: 'bench-1', email: ADDRESS }),
        tokens: true,
      }),
    )
  }
  const router = auth(options)
  const app = express()
  app.use('/api/auth', router)
  if (variant === 'tokens') {
    app.get('/token', (req, res) => {
      router.getAccessToken(req, 'stub').then(
        (token) => res.json(token),
        (error) => res.status(error.status ?? 500).json({ error: error.code ?? 'Error' }),
      )
    })
  }
  listen(app)
}
void main()
