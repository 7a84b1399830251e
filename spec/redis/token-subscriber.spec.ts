import { spawn } from 'node:child_process'
import { join } from 'node:path'
import type { Redis } from 'ioredis'
import { storeHealth } from '../../lib/infra/store/health'
import { redisRunner } from '../../lib/infra/store/redis'
import { redisVault, type TokenVault } from '../../lib/features/provider-tokens/redis-vault'
import { ownRedisForFile, until, untilReady } from '../support/redis'

// The vault's subscriber connection (redis-vault.ts, changeListener) over its life, on a Redis of
// this file's own: killed by the server (CLIENT KILL TYPE pubsub), made again by the next wait, and
// ended with the app's client; and the waits it keeps by ref, none left once they stopped.
const own = ownRedisForFile()
const prefix = 'tok-subscriber:'
const until60 = () => Math.floor(Date.now() / 1000) + 60
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

async function named(name: string): Promise<Redis> {
  const client = own().client({ connectionName: name })
  await untilReady(client)
  return client
}

function vaultOn(client: Redis): TokenVault {
  return redisVault(
    redisRunner(
      client,
      prefix,
      2000,
      storeHealth(() => undefined, 'Redis'),
    ),
  )
}

let admin: Redis | undefined

/** How many subscriber connections named `name` the server has. */
async function subscribers(name: string): Promise<number> {
  admin ??= await named('admin')
  const list = String(await admin.call('CLIENT', 'LIST', 'TYPE', 'pubsub'))
  return list.split('\n').filter((line) => line.includes(` name=${name} `)).length
}

/** Whether a wait on `ref` is woken by `write` within 3 s (the wait itself would last 30 s). */
async function woken(vault: TokenVault, ref: string, write: () => Promise<unknown>): Promise<boolean> {
  await vault.listen()
  const watch = vault.watch(ref)
  let heard = false
  const waited = watch.wait(30_000).then(() => (heard = true))
  await write()
  await Promise.race([waited, sleep(3000)])
  watch.stop()
  return heard
}

it('a subscriber the server killed is made again by the next wait: waiters are still woken by the write, and nothing piles up', async () => {
  const client = await named('tok-killed')
  const [vault, holder] = [vaultOn(client), vaultOn(await named('tok-holder'))]
  const ref = await vault.keep('user-1', 'sealed-1', 'fp-1', until60())
  await vault.listen()
  await until('subscribed', async () => (await subscribers('tok-killed')) === 1)
  const ends = client.listenerCount('end')
  for (let round = 2; round <= 4; round++) {
    await admin!.call('CLIENT', 'KILL', 'TYPE', 'pubsub')
    await until('killed', async () => (await subscribers('tok-killed')) === 0)
    // The client hears its connection close a moment later.
    await sleep(200)
    const owner = await holder.lock(ref, 30_000)
    expect(
      await woken(vault, ref, () => holder.replace(ref, `fp-${round - 1}`, `sealed-${round}`, `fp-${round}`, owner!)),
    ).toBe(true)
    expect(await subscribers('tok-killed')).toBe(1)
  }
  // One watch of the app's client's end, however many subscribers were made; no wait left behind.
  expect(client.listenerCount('end')).toBe(ends)
  expect(vault.watching()).toBe(0)
})

it("the app's client ending ends the subscriber, the one made after a kill too", async () => {
  const client = await named('tok-ended')
  const vault = vaultOn(client)
  await vault.listen()
  await until('subscribed', async () => (await subscribers('tok-ended')) === 1)
  await admin!.call('CLIENT', 'KILL', 'TYPE', 'pubsub')
  await until('killed', async () => (await subscribers('tok-ended')) === 0)
  await sleep(200)
  await vault.listen()
  await until('subscribed again', async () => (await subscribers('tok-ended')) === 1)
  await client.quit()
  await until('ended', async () => (await subscribers('tok-ended')) === 0, 5000)
})

it('two waits on one ref: the first stopping leaves the second woken by the write; none is left once both stopped', async () => {
  const vault = vaultOn(await named('tok-two'))
  const ref = await vault.keep('user-2', 'sealed-1', 'fp-1', until60())
  await vault.listen()
  const [first, second] = [vault.watch(ref), vault.watch(ref)]
  expect(vault.watching()).toBe(1)
  first.stop()
  let heard = false
  const waited = second.wait(30_000).then(() => (heard = true))
  // A lock let go publishes the ref, as every change does.
  await vault.release(ref, 'nobody')
  await Promise.race([waited, sleep(3000)])
  expect(heard).toBe(true)
  second.stop()
  expect(vault.watching()).toBe(0)
})

it('a wait lasts its time when nothing changes, and ends at once for a change heard after the watch began but before the wait', async () => {
  const vault = vaultOn(await named('tok-times'))
  const ref = await vault.keep('user-3', 'sealed-1', 'fp-1', until60())
  const started = Date.now()
  await vault.listen()
  // Subscribed promptly, not at the 2 s the subscription is given at most.
  expect(Date.now() - started).toBeLessThan(1000)
  const quiet = vault.watch(ref)
  const before = Date.now()
  await quiet.wait(300)
  expect(Date.now() - before).toBeGreaterThanOrEqual(290)
  quiet.stop()

  const watch = vault.watch(ref)
  await vault.release(ref, 'nobody')
  // The publish reaches the subscriber between the watch and the wait (as between a read and a lock).
  await sleep(300)
  let heard = false
  await Promise.race([watch.wait(30_000).then(() => (heard = true)), sleep(3000)])
  expect(heard).toBe(true)
  watch.stop()
  expect(vault.watching()).toBe(0)
})

it('Redis refusing the subscriber: listen() resolves at once (waits then run to their own deadlines), not at the 2 s it is given at most', async () => {
  const server = own()
  // A port nothing listens on: this file's server, stopped for the moment.
  const client = server.client({ lazyConnect: true, retryStrategy: () => null })
  await server.stop()
  try {
    const vault = vaultOn(client)
    const started = Date.now()
    await vault.listen()
    expect(Date.now() - started).toBeLessThan(1000)
  } finally {
    await server.start()
  }
})

it("never keeps the app's process alive: one whose own client is unref'd exits once its wait is over", async () => {
  const child = spawn(
    process.execPath,
    ['--require', join(__dirname, '../support/ts-child.js'), join(__dirname, 'fixtures/vault-exit-app.ts')],
    { env: { ...process.env, REDIS_PORT: String(own().port) }, stdio: ['ignore', 'pipe', 'pipe'] },
  )
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
  try {
    const code = await Promise.race([exited, sleep(10_000).then(() => 'still running')])
    expect({ code, output }).toEqual({ code: 0, output: 'waited\ndone\n' })
  } finally {
    child.kill('SIGKILL')
  }
}, 20_000)
