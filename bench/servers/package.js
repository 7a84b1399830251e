// This package, built (dist/lib), mounted the way the README mounts it.
// Usage: node bench/servers/package.js <default|database|cluster|revocation|callback|renewal>
// With `database` and `revocation`: BENCH_REDIS_URL and BENCH_REDIS_PREFIX name the Redis and the keys;
// with `cluster`, BENCH_REDIS_CLUSTER (host:port,…) names the Cluster's nodes.
const express = require('express')
const { auth, email, oauth2 } = require('../../dist/lib')
const { listen } = require('./listen')

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
if (variant === 'database' || variant === 'revocation') {
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
if (variant === 'database' || variant === 'cluster') options.session = { strategy: 'database' }
// The example of docs/options.md: the client also sees the user id.
if (variant === 'callback')
  options.callbacks = { session: ({ session, record }) => ({ ...session, userId: record.userId }) }
// Due for renewal one second after sign-in, and then on every request (the bench keeps the first cookie).
if (variant === 'renewal') options.session = { maxAge: 3600, updateAge: 1 }
if (!['default', 'database', 'cluster', 'revocation', 'callback', 'renewal'].includes(variant))
  throw new Error(`unknown variant ${variant}`)

const app = express()
app.use('/api/auth', auth(options))
listen(app)
