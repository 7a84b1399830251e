// The Redis the Redis-backed systems share: REDIS_URL when set, else a redis-server of the bench's
// own on a free loopback port, with no persistence. Every system writes under a key prefix of its own.
const { createServer } = require('node:net')
const { randomBytes } = require('node:crypto')
const Redis = require('ioredis')
const { execFile } = require('node:child_process')
const { mkdtempSync, rmSync } = require('node:fs')
const { tmpdir } = require('node:os')
const { join } = require('node:path')
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

/** A free port whose cluster bus port (port + 10000) is free too. */
async function clusterPort(taken) {
  for (;;) {
    const port = await freePort()
    if (port + 10000 > 65535 || taken.has(port) || taken.has(port + 10000)) continue
    const bus = await new Promise((resolve) => {
      const probe = createServer().once('error', () => resolve(false))
      probe.listen(port + 10000, '127.0.0.1', () => probe.close(() => resolve(true)))
    })
    if (!bus) continue
    taken.add(port).add(port + 10000)
    return port
  }
}

const cli = (args) =>
  new Promise((resolve, reject) =>
    execFile('redis-cli', args, { timeout: 30_000 }, (error, stdout) => (error ? reject(error) : resolve(stdout))),
  )

/**
 * A three-master Redis Cluster of the bench's own (no replicas, no persistence):
 * `{ nodes: 'host:port,…', prefix(systemId), stop() }`.
 */
exports.startCluster = async () => {
  const run = `bench:${randomBytes(4).toString('hex')}:`
  const dir = mkdtempSync(join(tmpdir(), 'bench-cluster-'))
  const taken = new Set()
  const servers = []
  const stop = async () => {
    await Promise.allSettled(servers.map((server) => server.stop(5_000)))
    rmSync(dir, { recursive: true, force: true })
  }
  try {
    for (let i = 0; i < 3; i++) {
      const port = await clusterPort(taken)
      const server = startProcess(
        'redis-cluster',
        process.execPath,
        [
          `${__dirname}/guard.js`,
          'redis-server',
          ...['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
          ...['--cluster-enabled', 'yes', '--cluster-config-file', join(dir, `nodes-${port}.conf`)],
          ...['--daemonize', 'no', '--loglevel', 'warning'],
        ],
        { quiet: true },
      )
      servers.push(Object.assign(server, { port }))
      await waitForPing(`redis://127.0.0.1:${port}`, server)
    }
    const addresses = servers.map(({ port }) => `127.0.0.1:${port}`)
    await cli(['--cluster', 'create', ...addresses, '--cluster-replicas', '0', '--cluster-yes'])
    const deadline = Date.now() + 30_000
    for (;;) {
      const infos = await Promise.all(servers.map(({ port }) => cli(['-p', String(port), 'CLUSTER', 'INFO'])))
      if (infos.every((info) => /^cluster_state:ok/m.test(info))) break
      if (Date.now() > deadline) throw new Error('the bench cluster did not reach cluster_state:ok')
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    return { nodes: addresses.join(','), prefix: (id) => `${run}${id}:`, stop }
  } catch (error) {
    await stop()
    throw error
  }
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
