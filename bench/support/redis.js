// The Redis the Redis-backed systems share: REDIS_URL when set, else a redis-server of the bench's
// own on a free loopback port, with no persistence. Every system writes under a key prefix of its own.
const { createServer } = require('node:net')
const { randomBytes } = require('node:crypto')
const Redis = require('ioredis')
const { startProcess } = require('./processes')

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer().once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address()
      probe.close(() => resolve(port))
    })
  })
}

/** `{ url, prefix(systemId), stop() }`: stop() deletes the run's keys (REDIS_URL) or ends the server. */
exports.startRedis = async () => {
  const run = `bench:${randomBytes(4).toString('hex')}:`
  const prefix = (id) => `${run}${id}:`
  if (process.env.REDIS_URL) {
    const url = process.env.REDIS_URL
    return { url, prefix, owned: false, stop: () => deleteKeys(url, `${run}*`) }
  }
  const port = await freePort()
  // Through guard.js: redis-server ignores its stdin, so it would outlive a bench that crashed.
  const server = startProcess(
    'redis-server',
    process.execPath,
    [
      `${__dirname}/guard.js`,
      'redis-server',
      ...['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      ...['--daemonize', 'no', '--loglevel', 'warning'],
    ],
    { quiet: true },
  )
  await waitForPing(`redis://127.0.0.1:${port}`, server)
  return { url: `redis://127.0.0.1:${port}`, prefix, owned: true, pid: server.pid, stop: () => server.stop(5_000) }
}

async function waitForPing(url, server) {
  const deadline = Date.now() + 10_000
  for (;;) {
    const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null })
    client.on('error', () => undefined) // the connect() below rejects with the same error
    try {
      await client.connect()
      await client.ping()
      return
    } catch (error) {
      if (Date.now() > deadline) {
        await server.stop()
        throw new Error(`redis-server did not answer on ${url}: ${error.message}`)
      }
      await new Promise((resolve) => setTimeout(resolve, 100))
    } finally {
      client.disconnect()
    }
  }
}

async function deleteKeys(url, pattern) {
  const client = new Redis(url)
  try {
    let cursor = '0'
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', pattern, 'COUNT', 1000)
      if (keys.length > 0) await client.del(...keys)
      cursor = next
    } while (cursor !== '0')
  } finally {
    client.disconnect()
  }
}
