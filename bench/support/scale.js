// What the soak (bench/soak.js) and the cost measurements (bench/costs.js) share: the package's
// server of ./servers/scale.js, a real e-mail sign-in for any address (the same steps as
// sessions.emailSignIn, run side by side), and a redis-server of their own that they can restart
// (keeping its data, through SHUTDOWN SAVE and its RDB file) and pause (SIGSTOP).
const { randomBytes } = require('node:crypto')
const { mkdirSync, mkdtempSync, rmSync, writeFileSync } = require('node:fs')
const { tmpdir } = require('node:os')
const { join } = require('node:path')
const Redis = require('ioredis')
const { startProcess } = require('./processes')
const { cookiePairs } = require('./sessions')

const FORM = { 'content-type': 'application/x-www-form-urlencoded' }

/** `{ origin, server }`: ./servers/scale.js with `strategy`, `env` added. */
async function startScaleServer(name, strategy, env, flags = []) {
  const script = join(__dirname, '..', 'servers', 'scale.js')
  const server = startProcess(name, process.execPath, [...flags, script, strategy], { env })
  const origin = `http://127.0.0.1:${await server.waitFor('READY ')}`
  return { origin, server }
}

async function expect(res, status, what) {
  if (res.status !== status) throw new Error(`${what}: expected ${status}, got ${res.status}: ${await res.text()}`)
}

/**
 * The session cookie (`name=value`) of a new e-mail sign-in of `address` on the server; tried again
 * (up to 5 times) when a step answers 503, as a user would: on this busy machine a Redis command
 * sometimes outlasts `storeTimeout`.
 */
async function signIn(app, address) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await signInOnce(app, address)
    } catch (error) {
      if (attempt >= 5 || !/got 503/.test(error.message)) throw error
      await sleep(200)
    }
  }
}

async function signInOnce({ origin, server }, address) {
  const base = `${origin}/api/auth`
  const csrfRes = await fetch(`${base}/csrf`)
  await expect(csrfRes, 200, 'GET /csrf')
  const { csrfToken } = await csrfRes.json()
  const csrfCookie = cookiePairs(csrfRes).join('; ')
  // A tag of this try in the callback URL, which the server prints beside the link: a link waited
  // for by a try that failed is never taken by the next one.
  const tag = randomBytes(6).toString('hex')
  const link = server.waitFor(`LINK ${address} ${tag} `, 60_000)
  link.catch(() => undefined)
  const asked = await fetch(`${base}/signin/email`, {
    method: 'POST',
    redirect: 'manual',
    headers: { ...FORM, cookie: csrfCookie },
    body: new URLSearchParams({ csrfToken, email: address, callbackUrl: `/?try=${tag}` }),
  })
  await expect(asked, 302, 'POST /signin/email')
  const values = new URL(await link).searchParams
  const confirmed = await fetch(`${base}/callback/email`, {
    method: 'POST',
    redirect: 'manual',
    headers: { ...FORM, cookie: csrfCookie },
    body: new URLSearchParams({
      token: values.get('token') ?? '',
      email: values.get('email') ?? '',
      callbackUrl: values.get('callbackUrl') ?? '',
      csrfToken,
    }),
  })
  await expect(confirmed, 302, 'POST /callback/email')
  const [session] = cookiePairs(confirmed, 'auth.session-token')
  if (!session) throw new Error(`the sign-in of ${address} set no session cookie`)
  return session
}

/** Runs `work(i)` for i in [0, count), `width` at a time; the results in order. */
async function inParallel(count, width, work) {
  const results = new Array(count)
  let next = 0
  const worker = async () => {
    while (next < count) {
      const i = next++
      results[i] = await work(i)
    }
  }
  await Promise.all(Array.from({ length: Math.min(width, count) }, worker))
  return results
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * A redis-server on `port` in a folder of its own, RDB only at shutdown (`--save ''`, SHUTDOWN SAVE):
 * `{ url, pid(), restart(downMs), pause(ms), stop() }`. Through guard.js (gone when we are).
 */
async function startOwnRedis(port) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-soak-redis-'))
  const url = `redis://127.0.0.1:${port}`
  let server = null
  let pid = null
  const start = async () => {
    server = startProcess(
      'redis-server',
      process.execPath,
      [
        join(__dirname, 'guard.js'),
        'redis-server',
        ...['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'],
        ...['--daemonize', 'no', '--loglevel', 'warning'],
      ],
      { quiet: true },
    )
    const deadline = Date.now() + 10_000
    for (;;) {
      const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null })
      client.on('error', () => undefined)
      try {
        await client.connect()
        // Loading the RDB answers LOADING until done: wait for a real answer.
        const info = await client.info('server')
        pid = Number(/^process_id:(\d+)/m.exec(info)[1])
        return
      } catch (error) {
        if (Date.now() > deadline) throw new Error(`redis-server did not answer on ${url}: ${error.message}`)
        await sleep(50)
      } finally {
        client.disconnect()
      }
    }
  }
  await start()
  return {
    url,
    pid: () => pid,
    /**
     * SHUTDOWN SAVE (the data kept in the RDB), `downMs` with nothing listening, started again;
     * resolves when it answers, with `downAt` (performance.now() once the server had exited).
     */
    async restart(downMs) {
      const client = new Redis(url, { maxRetriesPerRequest: 0, retryStrategy: () => null })
      client.on('error', () => undefined)
      await client.shutdown('SAVE').catch(() => undefined) // the connection closes instead of a reply
      client.disconnect()
      await server.stop(5_000)
      const downAt = performance.now()
      await sleep(downMs)
      await start()
      return { downAt }
    },
    /** SIGSTOP for `ms`, then SIGCONT: connections stay open, nothing answers. */
    async pause(ms) {
      process.kill(pid, 'SIGSTOP')
      try {
        await sleep(ms)
      } finally {
        process.kill(pid, 'SIGCONT')
      }
    },
    async stop() {
      if (pid) {
        try {
          process.kill(pid, 'SIGCONT')
        } catch {}
      }
      await server?.stop(5_000)
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

const SENTINEL_NAME = 'soak-primary'

/** `redis-server args…` through guard.js; resolves once it answers INFO (the primary, a replica) with its pid. */
async function redisProcess(name, port, args) {
  const server = startProcess(name, process.execPath, [join(__dirname, 'guard.js'), 'redis-server', ...args], {
    quiet: true,
  })
  const deadline = Date.now() + 20_000
  for (;;) {
    const client = new Redis(port, '127.0.0.1', {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    })
    client.on('error', () => undefined)
    try {
      await client.connect()
      const info = await client.info('server')
      return Object.assign(server, { port, pid: Number(/^process_id:(\d+)/m.exec(info)[1]) })
    } catch (error) {
      if (Date.now() > deadline) {
        await server.stop()
        throw new Error(`${name} did not answer on port ${port}: ${error.message}`)
      }
      await sleep(50)
    } finally {
      client.disconnect()
    }
  }
}

async function command(port, ...args) {
  const client = new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 0, retryStrategy: () => null })
  client.on('error', () => undefined)
  try {
    return await client.call(...args)
  } finally {
    client.disconnect()
  }
}

/**
 * Redis Sentinel as spec/support/redis-sentinel.ts deploys it: a primary, one replica and three
 * sentinels (quorum 2, a primary unreachable for 1 s is down), nothing persisted.
 * `{ sentinels: 'host:port,…', name, failover(), pause(ms), stop() }`; `freePort` gives ports.
 */
async function startSentinelRedis(freePort) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-soak-sentinel-'))
  const servers = []
  const stop = async () => {
    for (const server of servers) {
      try {
        process.kill(server.pid, 'SIGCONT')
      } catch {}
    }
    await Promise.allSettled(servers.map((server) => server.stop(5_000)))
    rmSync(dir, { recursive: true, force: true })
  }
  const data = async (port, extra = []) => {
    const folder = join(dir, String(port))
    mkdirSync(folder)
    const base = ['--port', String(port), '--bind', '127.0.0.1', '--dir', folder, '--save', '', '--appendonly', 'no']
    const server = await redisProcess(`redis-${port}`, port, [...base, '--daemonize', 'no', ...extra])
    servers.push(server)
    return server
  }
  try {
    const primary = await data(await freePort())
    const replica = await data(await freePort(), ['--replicaof', '127.0.0.1', String(primary.port)])
    const sentinelPorts = []
    for (let i = 0; i < 3; i++) {
      const port = await freePort()
      const folder = join(dir, `sentinel-${port}`)
      mkdirSync(folder)
      const conf = join(folder, 'sentinel.conf')
      writeFileSync(
        conf,
        [
          `port ${port}`,
          'bind 127.0.0.1',
          `dir ${folder}`,
          `sentinel monitor ${SENTINEL_NAME} 127.0.0.1 ${primary.port} 2`,
          `sentinel down-after-milliseconds ${SENTINEL_NAME} 1000`,
          `sentinel failover-timeout ${SENTINEL_NAME} 5000`,
          '',
        ].join('\n'),
      )
      servers.push(await redisProcess(`sentinel-${port}`, port, [conf, '--sentinel']))
      sentinelPorts.push(port)
    }
    const deadline = Date.now() + 30_000
    for (;;) {
      const sync = /master_link_status:up/.test(await command(replica.port, 'INFO', 'replication'))
      const known = await Promise.all(
        sentinelPorts.map(async (port) => {
          const others = await command(port, 'SENTINEL', 'SENTINELS', SENTINEL_NAME)
          const replicas = await command(port, 'SENTINEL', 'REPLICAS', SENTINEL_NAME)
          return others.length === 2 && replicas.length === 1
        }),
      )
      if (sync && known.every(Boolean)) break
      if (Date.now() > deadline) throw new Error('the sentinels did not learn of each other and of the replica')
      await sleep(100)
    }
    const primaryPort = async () => {
      for (const port of sentinelPorts) {
        const answer = await command(port, 'SENTINEL', 'GET-MASTER-ADDR-BY-NAME', SENTINEL_NAME).catch(() => null)
        if (Array.isArray(answer) && answer.length === 2) return Number(answer[1])
      }
      throw new Error('no sentinel names a primary')
    }
    return {
      sentinels: sentinelPorts.map((port) => `127.0.0.1:${port}`).join(','),
      name: SENTINEL_NAME,
      /** SIGKILLs the primary; resolves (`{ downAt }`) once the sentinels name the replica and it says it is the primary. */
      async failover() {
        const old = await primaryPort()
        const server = servers.find((s) => s.port === old)
        process.kill(server.pid, 'SIGKILL')
        const downAt = performance.now()
        const until = Date.now() + 30_000
        for (;;) {
          const now = await primaryPort().catch(() => old)
          if (now !== old && /^role:master/m.test(await command(now, 'INFO', 'replication').catch(() => '')))
            return { downAt }
          if (Date.now() > until) throw new Error('no replica was promoted within 30 s')
          await sleep(20)
        }
      },
      /** SIGSTOP of the primary for `ms` (below the sentinels' 1 s: no failover), then SIGCONT. */
      async pause(ms) {
        const port = await primaryPort()
        const { pid } = servers.find((s) => s.port === port)
        process.kill(pid, 'SIGSTOP')
        try {
          await sleep(ms)
        } finally {
          process.kill(pid, 'SIGCONT')
        }
      },
      stop,
    }
  } catch (error) {
    await stop()
    throw error
  }
}

module.exports = { startScaleServer, signIn, inParallel, startOwnRedis, startSentinelRedis, sleep }
