import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { freePort, startProcess, type Started } from '../support/process'

/**
 * The demo checks what it depends on before it says it runs: a busy port and an unreachable Redis
 * stop it with a message naming the cause (exit status not 0), instead of "listening" or
 * "kept in Redis".
 */
const root = join(__dirname, '../..')
const server = ['dist/examples/demo/server.js']
const quiet = {
  SERVICE_AUTH_SECRET: '',
  SERVICE_AUTH_URL: '',
  SMTP_URL: '',
  EMAIL_FROM: '',
  REDIS_URL: '',
  DATABASE_URL: '',
}

beforeAll(async () => {
  await promisify(execFile)('npm', ['run', 'build'], { cwd: root })
}, 120_000)

describe('two demos on one port', () => {
  let first: Started | undefined
  afterAll(() => first?.stop())

  it('the second exits non-zero with "port in use", and the first keeps answering', async () => {
    const port = await freePort()
    first = await startProcess('node', server, {
      cwd: root,
      env: { ...quiet, PORT: String(port), DEMO_IDP_PORT: String(await freePort()) },
      ready: /listening on/,
      timeoutMs: 30_000,
    })
    const second = startProcess('node', server, {
      cwd: root,
      env: { ...quiet, PORT: String(port), DEMO_IDP_PORT: String(await freePort()) },
      ready: /listening on/,
      timeoutMs: 30_000,
    })
    second.then((started) => started.stop()).catch(() => undefined)
    await expect(second).rejects.toThrow(new RegExp(`exited with [1-9]\\d* before ready:[\\s\\S]*port ${port} in use`))
    expect((await fetch(`http://localhost:${port}/api/auth/csrf`)).status).toBe(200)
  }, 60_000)
})

describe('the demo with an unreachable REDIS_URL', () => {
  it('exits non-zero naming Redis and the cause, and never says sessions are kept there', async () => {
    const redisPort = await freePort()
    const demo = startProcess('node', server, {
      cwd: root,
      env: {
        ...quiet,
        PORT: String(await freePort()),
        DEMO_IDP_PORT: String(await freePort()),
        REDIS_URL: `redis://:hunter2-password@127.0.0.1:${redisPort}/0`,
      },
      ready: /listening on|kept in Redis/,
      timeoutMs: 30_000,
    })
    demo.then((started) => started.stop()).catch(() => undefined)
    const error = await demo.then(
      () => new Error('the demo started'),
      (e: Error) => e,
    )
    expect(error.message).toMatch(/^exited with [1-9]/)
    expect(error.message).toMatch(
      new RegExp(
        `Redis at redis://127\\.0\\.0\\.1:${redisPort}/0 did not answer PING within 3000 ms \\(ECONNREFUSED\\)`,
      ),
    )
    expect(error.message).not.toMatch(/kept in Redis|hunter2/)
  }, 60_000)
})
