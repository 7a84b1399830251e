// GET /session against bare Express and against the auth router, in one run, reporting ratios.
// Traffic stays on 127.0.0.1; every run is bounded by DURATION seconds per case.
const { spawn } = require('node:child_process')
const autocannon = require('autocannon')
const { sessionCookie } = require('./session-cookie.js')

const DURATION = Number(process.env.BENCH_SECONDS ?? 10)
const CONNECTIONS = 50

function start(kind) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [`${__dirname}/servers.js`, kind], { stdio: ['ignore', 'pipe', 'inherit'] })
    child.stdout.once('data', (data) => {
      const match = /READY (\d+)/.exec(String(data))
      match ? resolve({ child, url: `http://127.0.0.1:${match[1]}/api/auth/session` }) : reject(new Error(String(data)))
    })
    child.once('error', reject)
  })
}

function run(url, headers = {}) {
  return new Promise((resolve, reject) => {
    autocannon({ url, headers, connections: CONNECTIONS, duration: DURATION }, (error, result) =>
      error ? reject(error) : resolve(result),
    )
  })
}

async function main() {
  const bare = await start('bare')
  const floor = await start('floor')
  const ours = await start('auth')
  const cookie = await sessionCookie('b'.repeat(40))
  try {
    const cases = [
      ['bare Express, res.json({})', bare.url, {}],
      ["bare Express, res.end('{}')", floor.url, {}],
      ['auth router, no cookie', ours.url, {}],
      ['auth router, valid session cookie', ours.url, { cookie }],
    ]
    const rows = []
    for (const [label, url, headers] of cases) {
      await run(url, headers).then(() => undefined) // warm-up, not reported
      const result = await run(url, headers)
      if (result.non2xx > 0 || result.errors > 0)
        throw new Error(`${label}: ${result.non2xx} non-2xx, ${result.errors} errors`)
      rows.push({ label, rps: result.requests.average, p99: result.latency.p99 })
    }
    const baseline = rows[0].rps
    console.log(`GET /session, ${CONNECTIONS} connections, ${DURATION}s per case, Node ${process.version}`)
    for (const row of rows) {
      console.log(
        `${row.label.padEnd(36)} ${Math.round(row.rps).toString().padStart(7)} req/s  p99 ${row.p99} ms  ${(row.rps / baseline).toFixed(2)}x of bare Express`,
      )
    }
  } finally {
    for (const server of [bare, floor, ours]) server.child.kill()
  }
}

main().catch((error) => {
  console.error(error)
  process.exitCode = 1
})
