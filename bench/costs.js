// Cost as the work grows (bench/README.md, "Cost as the work grows"). Four measurements, each with
// servers of its own (./servers/scale.js; Redis: REDIS_URL, else a redis-server of ours):
//   redis    bytes of Redis memory per database session and per user index (MEMORY USAGE … SAMPLES 0)
//   revoke   revokeSessions() for a user at the cap of 50 sessions (and with one session)
//   caches   memory of the reply cache and the held Redis records when full (10,000 users signed in, each read)
//   load     GET /session with 1, 1,000 and 100,000 distinct signed-in users (cookie sessions), autocannon
//            rotating their cookies, interleaved with bare Express 5 res.json
//   load-database  the same with database sessions: 1, 1,000 and 20,000 users (not run by default:
//            20,000 sign-ins take minutes)
// COSTS_ONLY=redis,load picks some. Run after `npm run build` (it measures dist/lib).
const { randomBytes } = require('node:crypto')
const path = require('node:path')
const os = require('node:os')
const autocannon = require('autocannon')
const Redis = require('ioredis')
const { cpuMs, memory, startProcess } = require('./support/processes')
const { startRedis } = require('./support/redis')
const { startScaleServer, signIn, inParallel } = require('./support/scale')

const ONLY = (process.env.COSTS_ONLY ?? 'redis,revoke,caches,load').split(',')
const ROUNDS = Number(process.env.COSTS_ROUNDS ?? 3)
const SECONDS = Number(process.env.COSTS_SECONDS ?? 5)
const secret = randomBytes(32).toString('base64url')
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const range = (xs) => `${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)}`
const mb = (bytes) => (bytes / 1024 / 1024).toFixed(1)

async function withServers(redis, name, work) {
  const servers = []
  const start = async (strategy, flags) => {
    const env = { BENCH_SECRET: secret }
    if (redis) Object.assign(env, { BENCH_REDIS_URL: redis.url, BENCH_REDIS_PREFIX: redis.prefix(name) })
    const started = await startScaleServer(name, strategy, env, flags)
    servers.push(started.server)
    return started
  }
  try {
    return await work(start, redis?.prefix(name))
  } finally {
    await Promise.allSettled(servers.map((server) => server.stop()))
  }
}

/** Redis memory of each kind of key under `prefix`: the key with its random parts starred. */
async function keyKinds(url, prefix) {
  const client = new Redis(url)
  const kinds = new Map()
  try {
    let cursor = '0'
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000)
      for (const key of keys) {
        const kind = key
          .slice(prefix.length)
          .split(':')
          .map((part) => (part.startsWith('device.') ? 'device.*' : part.length >= 16 || /\d/.test(part) ? '*' : part))
          .join(':')
        const bytes = await client.memory('USAGE', key, 'SAMPLES', 0)
        const type = await client.type(key)
        const entry = kinds.get(kind) ?? { kind, type, count: 0, bytes: 0, min: Infinity, max: 0 }
        entry.count++
        entry.bytes += bytes
        entry.min = Math.min(entry.min, bytes)
        entry.max = Math.max(entry.max, bytes)
        kinds.set(kind, entry)
      }
      cursor = next
    } while (cursor !== '0')
  } finally {
    client.disconnect()
  }
  return [...kinds.values()].sort((a, b) => b.count - a.count)
}

async function redisMemory(redis) {
  console.log('\n## Redis memory (database sessions)\n')
  for (const [users, perUser] of [
    [1000, 1],
    [20, 50],
  ]) {
    await withServers(redis, `mem-${users}x${perUser}`, async (start, prefix) => {
      const app = await start('database')
      await inParallel(users * perUser, 8, (i) => signIn(app, `mem-${i % users}@example.com`))
      console.log(`${users} users × ${perUser} session(s), e-mail sign-ins over HTTP:\n`)
      console.log('| key (random parts as *) | type | keys | bytes each, mean | min–max |')
      console.log('|---|---|---|---|---|')
      for (const k of await keyKinds(redis.url, prefix))
        console.log(`| \`${k.kind}\` | ${k.type} | ${k.count} | ${Math.round(k.bytes / k.count)} | ${k.min}–${k.max} |`)
      console.log()
    })
  }
}

async function revokeTimes(redis) {
  console.log('\n## revokeSessions\n')
  const REPEATS = 10
  for (const perUser of [50, 1]) {
    await withServers(redis, `revoke-${perUser}`, async (start) => {
      const app = await start('database')
      const times = []
      for (let r = 0; r < REPEATS; r++) {
        const address = `revoke-${perUser}-${r}@example.com`
        const cookies = await inParallel(perUser, 8, () => signIn(app, address))
        const res = await fetch(`${app.origin}/revoke`, { method: 'POST', headers: { cookie: cookies.at(-1) } })
        if (res.status !== 200) throw new Error(`POST /revoke answered ${res.status}`)
        times.push((await res.json()).ms)
        // Every one of the user's sessions is gone.
        for (const cookie of cookies) {
          const body = await (await fetch(`${app.origin}/api/auth/session`, { headers: { cookie } })).json()
          if (Object.keys(body).length !== 0) throw new Error('a session outlived revokeSessions')
        }
      }
      console.log(
        `user with ${perUser} session(s): revokeSessions ${median(times).toFixed(1)} ms median, ${range(times)} ms over ${REPEATS} users (in the server, from its call to its end; every session then answered {})`,
      )
    })
  }
}

async function cacheMemory(redis) {
  console.log('\n## Caches when full\n')
  const USERS = 10_000
  for (const strategy of ['cookie', 'database']) {
    await withServers(strategy === 'database' ? redis : null, `caches-${strategy}`, async (start) => {
      const app = await start(strategy, ['--expose-gc'])
      const cookies = await inParallel(USERS, 8, (i) => signIn(app, `cache-${i}@example.com`))
      const read = async () => {
        await inParallel(USERS, 16, async (i) => {
          const res = await fetch(`${app.origin}/api/auth/session`, { headers: { cookie: cookies[i] } })
          const body = await res.json()
          if (body.user?.email !== `cache-${i}@example.com`)
            throw new Error(`GET /session answered ${JSON.stringify(body)}`)
        })
      }
      // The sign-ins' garbage and the code's first use out of the way: one read of 100 users, a collection.
      await inParallel(100, 8, async (i) =>
        (await fetch(`${app.origin}/api/auth/session`, { headers: { cookie: cookies[i] } })).text(),
      )
      const gcMemory = async () => (await fetch(`${app.origin}/memory`)).json()
      const before = await gcMemory()
      const rssBefore = memory(app.server.pid, 'VmRSS')
      await read()
      await read()
      const after = await gcMemory()
      const rssAfter = memory(app.server.pid, 'VmRSS')
      console.log(
        `${strategy} sessions, ${USERS} users signed in, each read twice: heap used after a full collection ` +
          `${mb(before.heapUsed)} → ${mb(after.heapUsed)} MB (+${mb(after.heapUsed - before.heapUsed)}), ` +
          `RSS ${mb(rssBefore)} → ${mb(rssAfter)} MB (+${mb(rssAfter - rssBefore)}), external+buffers ${mb(before.external + before.arrayBuffers)} → ${mb(after.external + after.arrayBuffers)} MB`,
      )
    })
  }
}

/** `count` cookie sessions of distinct users: one real sign-in, its claims sealed again per user under the session key. */
async function mintCookies(app, count) {
  const { keyRing } = require('../dist/lib/infra/crypto/keys')
  const { open, seal } = require('../dist/lib/infra/crypto/jwe')
  const real = await signIn(app, 'load-0@example.com')
  const [name, value] = real.split('=')
  const ring = keyRing([secret], 'session')
  const claims = open(ring, value)
  if (!claims) throw new Error('could not open the sign-in cookie: has the cookie format changed?')
  const cookies = [real]
  for (let i = 1; i < count; i++) {
    const user = { ...claims.user, email: `load-${i}@example.com` }
    cookies.push(`${name}=${seal(ring.current, { ...claims, sub: `${claims.sub}-${i}`, user })}`)
  }
  return cookies
}

function load(url, cookies, duration) {
  let turn = 0
  return new Promise((resolve, reject) =>
    autocannon(
      {
        url,
        connections: 50,
        pipelining: 10,
        duration,
        requests: [
          {
            setupRequest: (request) => ({
              ...request,
              headers: { ...request.headers, cookie: cookies[turn++ % cookies.length] },
            }),
          },
        ],
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    ),
  )
}

/**
 * `strategy` cookie: 1, 1,000 and 100,000 users, the cookies minted (mintCookies); database: 1,
 * 1,000 and 20,000 users signed in over HTTP (20,000 users are 40,000 keys, twice what is held).
 */
async function loadGrowth(strategy, redis) {
  console.log(`\n## GET /session as the number of signed-in users grows (${strategy} sessions)\n`)
  const COUNTS = strategy === 'cookie' ? [1, 1000, 100_000] : [1, 1000, 20_000]
  const reference = startProcess('express', process.execPath, [path.join(__dirname, 'servers', 'express.js'), 'json'])
  try {
    const refUrl = `http://127.0.0.1:${await reference.waitFor('READY ')}/api/auth/session`
    await withServers(strategy === 'cookie' ? null : redis, `load-${strategy}`, async (start) => {
      const app = await start(strategy)
      const all =
        strategy === 'cookie'
          ? await mintCookies(app, Math.max(...COUNTS))
          : await inParallel(Math.max(...COUNTS), 8, (i) => signIn(app, `load-${i}@example.com`))
      const url = `${app.origin}/api/auth/session`
      // Every cookie answers its own user (checked on a sample).
      for (const i of [0, 1, 999, all.length - 1]) {
        const body = await (await fetch(url, { headers: { cookie: all[i] } })).json()
        if (body.user?.email !== `load-${i}@example.com`)
          throw new Error(`cookie ${i} answered ${JSON.stringify(body)}`)
      }
      const systems = [
        { id: 'express res.json', url: refUrl, pid: reference.pid, cookies: [''] },
        ...COUNTS.map((n) => ({ id: `package, ${n} users`, url, pid: app.server.pid, cookies: all.slice(0, n) })),
      ]
      for (const s of systems) await load(s.url, s.cookies, 2) // warm-up
      const rows = new Map(systems.map((s) => [s.id, { rps: [], ratio: [], cpu: [], p99: [] }]))
      for (let round = 0; round < ROUNDS; round++) {
        let refRps = null
        for (const s of systems) {
          const cpu0 = cpuMs(s.pid)
          const result = await load(s.url, s.cookies, SECONDS)
          const cpu = ((cpuMs(s.pid) - cpu0) * 1000) / result.requests.total
          if (result.non2xx + result.errors + result.timeouts > 0) throw new Error(`${s.id}: failures under load`)
          refRps ??= result.requests.average
          const row = rows.get(s.id)
          row.rps.push(result.requests.average)
          row.ratio.push(result.requests.average / refRps)
          row.cpu.push(cpu)
          row.p99.push(result.latency.p99)
          console.log(
            `round ${round + 1} ${s.id}: ${Math.round(result.requests.average)} req/s, ${cpu.toFixed(0)} µs CPU/req`,
          )
        }
      }
      console.log(
        `\n${ROUNDS} rounds × ${SECONDS} s, 50 connections × 10 pipelined, interleaved; load average ${os.loadavg()[0].toFixed(2)} at the end\n`,
      )
      console.log(
        '| system | req/s (median) | × Express (median, min–max) | server CPU µs/req (median, min–max) | p99 ms |',
      )
      console.log('|---|---|---|---|---|')
      for (const [id, r] of rows)
        console.log(
          `| ${id} | ${Math.round(median(r.rps))} | ${median(r.ratio).toFixed(2)} (${Math.min(...r.ratio).toFixed(2)}–${Math.max(...r.ratio).toFixed(2)}) | ${median(r.cpu).toFixed(0)} (${range(r.cpu)}) | ${median(r.p99)} |`,
        )
      console.log(
        `RSS of the package's server after the rounds: ${mb(memory(app.server.pid, 'VmRSS'))} MB, peak ${mb(memory(app.server.pid, 'VmHWM'))} MB`,
      )
    })
  } finally {
    await reference.stop()
  }
}

async function main() {
  console.log(
    `${new Date().toISOString()}, Node ${process.version}, ${os.cpus().length} CPUs, load average ${os.loadavg()[0].toFixed(2)}`,
  )
  const redis = ONLY.some((x) => ['redis', 'revoke', 'caches', 'load-database'].includes(x)) ? await startRedis() : null
  try {
    if (ONLY.includes('redis')) await redisMemory(redis)
    if (ONLY.includes('revoke')) await revokeTimes(redis)
    if (ONLY.includes('caches')) await cacheMemory(redis)
    if (ONLY.includes('load')) await loadGrowth('cookie')
    if (ONLY.includes('load-database')) await loadGrowth('database', redis)
  } finally {
    await redis?.stop()
  }
}

main().catch((error) => {
  console.error(error)
  // Everything started was stopped on the way out (the finally blocks): nothing is left to wait for.
  process.exit(1)
})
