// The benchmark: each system in its own server process on 127.0.0.1, loaded with autocannon from
// this process, round by round (A, B, C, A, B, C …) so that a noisy minute hurts every system
// alike; each round's req/s is divided by bare Express's in the same round. See bench/README.md.
// Run after `npm run build` (it measures dist/lib) and `npm --prefix bench ci` (for @auth/express).
const { randomBytes } = require('node:crypto')
const { execFileSync } = require('node:child_process')
const { mkdirSync, writeFileSync } = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const autocannon = require('autocannon')
const { REFERENCE, SYSTEMS } = require('./systems')
const { checkReply } = require('./support/checks')
const { cpuMs, memory, startProcess } = require('./support/processes')
const { startCluster, startRedis } = require('./support/redis')
const { summarize, table, tally } = require('./support/report')
const sessions = require('./support/sessions')

const ROOT = path.resolve(__dirname, '..')
const PROFILE_DIR = path.join(ROOT, '.bench', 'profiles')

function wholeNumber(name, fallback, min) {
  const value = process.env[name] === undefined || process.env[name] === '' ? fallback : Number(process.env[name])
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be a whole number ≥ ${min}`)
  return value
}

function readSettings() {
  const seconds = wholeNumber('BENCH_SECONDS', 10, 1)
  return {
    rounds: wholeNumber('BENCH_ROUNDS', 3, 1),
    seconds,
    connections: wholeNumber('BENCH_CONNECTIONS', 50, 1),
    pipelining: wholeNumber('BENCH_PIPELINING', 10, 1),
    warmup: wholeNumber('BENCH_WARMUP', Math.min(5, seconds), 0),
    only: (process.env.BENCH_ONLY ?? '').split(',').filter(Boolean),
    profile: process.env.BENCH_PROFILE === '1',
    results: process.env.BENCH_RESULTS ?? path.join(__dirname, 'results.md'),
  }
}

/** BENCH_ONLY=eas-session,authjs-session: ids equal to or starting with an entry; the reference always. */
function selectSystems(only) {
  if (only.length === 0) return SYSTEMS
  for (const entry of only) {
    if (!SYSTEMS.some(({ id }) => id.startsWith(entry)))
      throw new Error(`BENCH_ONLY: no system id starts with "${entry}"; ids: ${SYSTEMS.map(({ id }) => id).join(', ')}`)
  }
  return SYSTEMS.filter(({ id }) => id === REFERENCE || only.some((entry) => id.startsWith(entry)))
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

function load(target, seconds, { connections, pipelining }) {
  // A system may set its own load (a password sign-in: as many connections as the hashing takes at once).
  const { method = 'GET', body } = target.system
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: target.url,
        headers: target.headers,
        method,
        ...(body === undefined ? {} : { body }),
        connections: target.system.connections ?? connections,
        pipelining: target.system.pipelining ?? pipelining,
        duration: seconds,
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    )
  })
}

/** Starts a system's server, obtains its cookie and checks its reply; `problem` says why it is not measured. */
async function launch(system, { secret, redis, cluster, settings }) {
  const [script, ...args] = system.server
  const flags = []
  if (settings.profile && system.id.startsWith('eas-')) {
    mkdirSync(PROFILE_DIR, { recursive: true })
    flags.push('--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`, `--cpu-prof-name=${system.id}.cpuprofile`)
  }
  // The `-otel` rows: the OpenTelemetry SDK and HTTP instrumentation preloaded (servers/otel.js).
  if (system.otel) flags.push('--require', path.join(__dirname, 'servers', 'otel.js'))
  const env = { BENCH_SECRET: secret }
  if (system.redis) Object.assign(env, { BENCH_REDIS_URL: redis.url, BENCH_REDIS_PREFIX: redis.prefix(system.id) })
  if (system.redisCluster)
    Object.assign(env, { BENCH_REDIS_CLUSTER: cluster.nodes, BENCH_REDIS_PREFIX: cluster.prefix(system.id) })
  const argv = [...flags, path.join(__dirname, 'servers', script), ...args]
  const server = startProcess(system.id, process.execPath, argv, { env })
  const target = { system, server, url: '', headers: {}, rounds: [], startRss: null, peakRss: null, problem: null }
  try {
    const origin = `http://127.0.0.1:${await server.waitFor('READY ')}`
    target.url = `${origin}${system.path}`
    const prepared = await sessions[system.prepare]({ origin, server, system, secret })
    // A POST system's preparation gives its request's headers and body (kept on the system for load and checks).
    if (system.method === 'POST') {
      target.headers = prepared.headers
      target.system = { ...system, body: prepared.body }
    } else target.headers = prepared
    if (system.settleMs) await sleep(system.settleMs)
    target.problem = await checkReply(origin, target.system, target.headers)
    target.origin = origin
    target.startRss = memory(server.pid, 'VmRSS')
  } catch (error) {
    target.problem = error.message
  }
  return target
}

async function measure(target, seconds, settings) {
  const cpuBefore = cpuMs(target.server.pid)
  const result = await load(target, seconds, settings)
  const cpuAfter = cpuMs(target.server.pid)
  const peak = memory(target.server.pid, 'VmHWM')
  if (peak !== null) target.peakRss = Math.max(target.peakRss ?? 0, peak)
  const failed = result.non2xx + result.errors + result.timeouts
  if (failed > 0 && !target.problem)
    target.problem = `${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts under load`
  // The server's CPU time per answer: what it costs, whether or not the load generator kept it busy.
  const cpuUs = cpuBefore === null || cpuAfter === null ? null : ((cpuAfter - cpuBefore) * 1000) / result.requests.total
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, cpuUs }
}

function describeRun(settings, systems) {
  const git = (...args) => {
    try {
      return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
    } catch {
      return '?'
    }
  }
  const dirty = git('status', '--porcelain', '--', 'lib') ? ' (lib/ with uncommitted changes)' : ''
  return [
    `${new Date().toISOString()}, commit ${git('rev-parse', '--short', 'HEAD')}${dirty}, Node ${process.version}`,
    `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'}, load average ${os.loadavg()[0].toFixed(2)} at start`,
    `${settings.rounds} rounds × ${settings.seconds} s per system (after a ${settings.warmup} s warm-up), ` +
      `${settings.connections} connections, pipelining ${settings.pipelining}, ${systems.length} systems interleaved`,
  ]
}

async function main() {
  const settings = readSettings()
  const systems = selectSystems(settings.only)
  const header = describeRun(settings, systems)
  console.log(header.join('\n'))
  const secret = randomBytes(32).toString('base64url')
  const targets = []
  let redis = null
  let cluster = null
  // The servers first, then the Redis they are connected to (else each logs the lost connection).
  const stopAll = async () => {
    await Promise.allSettled(targets.splice(0).map((target) => target.server.stop()))
    await redis?.stop()
    await cluster?.stop()
    redis = null
    cluster = null
  }
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, () => void stopAll().finally(() => process.exit(130)))
  }
  try {
    if (systems.some((system) => system.redis)) redis = await startRedis()
    if (systems.some((system) => system.redisCluster)) cluster = await startCluster()
    for (const system of systems) {
      const target = await launch(system, { secret, redis, cluster, settings })
      targets.push(target)
      if (target.problem) console.log(`${system.id}: not measured: ${target.problem}`)
    }
    if (targets[0].problem) throw new Error(`the reference (${REFERENCE}) failed its check: ${targets[0].problem}`)
    const live = targets.filter((target) => !target.problem)
    if (settings.warmup > 0) {
      console.log(`warming up (${settings.warmup} s each)`)
      for (const target of live) await load(target, settings.warmup, settings)
    }
    for (let round = 1; round <= settings.rounds; round++) {
      for (const target of live) {
        const result = await measure(target, settings.seconds, settings)
        target.rounds.push(result)
        console.log(
          `round ${round}/${settings.rounds} ${target.system.id.padEnd(24)} ${Math.round(result.rps)} req/s, ${result.cpuUs?.toFixed(0) ?? '?'} µs CPU/req`,
        )
      }
    }
    for (const target of live) {
      const problem = await checkReply(target.origin, target.system, target.headers)
      if (problem && !target.problem) target.problem = `after the rounds: ${problem}`
    }
    const rows = summarize(targets, REFERENCE)
    const perCore = rows
      .filter((row) => row.system.perCore && row.rps !== null)
      .map(
        (row) =>
          `${row.system.label}: ${(row.rps / os.cpus().length).toFixed(1)} per second per core (${os.cpus().length} cores)`,
      )
    const text = [table(rows), tally(rows), ...perCore].join('\n\n')
    console.log(`\n${text}`)
    if (settings.results !== '-') {
      const body = ['# Benchmark results', '', ...header.map((line) => `${line}  `), '', text, ''].join('\n')
      writeFileSync(settings.results, body)
      console.log(`\nwritten to ${path.relative(process.cwd(), settings.results)}`)
    }
    if (settings.profile)
      console.log(`CPU profiles in ${path.relative(process.cwd(), PROFILE_DIR)} once the servers stop`)
    if (targets.some((target) => target.problem)) process.exitCode = 1
  } finally {
    await stopAll()
  }
}

main().catch((error) => {
  console.error(error)
  process.exitCode = 1
})
