import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { ownRedisForFile } from '../support/redis'
import { cachedApp, sleep } from '../support/tracking'

// The cache's own connection (lib/infra/store/redis/tracking.ts) never keeps an app's process alive. An
// app that calls disconnect() on its client while Redis is down (a shutdown during an outage) ends
// the client without an 'end' event; our connection, cut by the same outage, must not go on trying
// to reconnect on a timer of its own, or the process never exits. (It did, and Jest's full run
// hung after its last test.)
jest.setTimeout(60_000)

const own = ownRedisForFile()

it('lets the process exit once the app gave its client up while Redis was down', async () => {
  const child = spawn(
    process.execPath,
    ['--require', join(__dirname, '../support/ts-child.js'), join(__dirname, 'fixtures/gives-up-app.ts')],
    { env: { ...process.env, REDIS_PORT: String(own().port) }, stdio: ['ignore', 'pipe', 'pipe'] },
  )
  let output = ''
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  try {
    for (let i = 0; i < 300 && !output.includes('up\n'); i++) await sleep(50)
    expect(output).toContain('up\n')
    await own().stop('SIGKILL')
    const code = await Promise.race([
      exited,
      new Promise((resolve) => setTimeout(() => resolve('still running'), 8000)),
    ])
    expect({ code, output }).toEqual({ code: 0, output: 'up\ngave up\n' })
  } finally {
    child.kill('SIGKILL')
    await own().start()
  }
})

it('closes its connection when the app disconnect()s a client whose own connection alone was cut', async () => {
  const admin = own().client()
  const count = async () =>
    String(await admin.client('LIST'))
      .trim()
      .split('\n').length
  const before = await count()
  const main = own().client()
  await cachedApp(main, 'tracking-gave-up:')
  for (let i = 0; i < 30 && (await count()) < before + 2; i++) await sleep(100)
  expect(await count()).toBe(before + 2) // the app's client and the cache's connection
  const id = String(await main.client('ID'))
  const gaveUp = new Promise<void>((resolve) =>
    main.once('reconnecting', () => {
      main.disconnect() // no 'end': the client stays 'reconnecting' for good
      resolve()
    }),
  )
  await admin.client('KILL', 'ID', id)
  await gaveUp
  await sleep(2500)
  expect(await count()).toBe(before)
})
