import type { Redis } from 'ioredis'
import { Browser } from '../support/browser'
import { monitorCommands, ownRedis, untilReady, type OwnRedis } from '../support/redis'
import { mailedLink, newAddress, startEmailService, stopAll, useLink } from '../support/email-harness'

// What the package sends to Redis, seen through MONITOR on a server of this spec's own while a user
// asks for a link, signs in with it, reads and updates the session, and signs out everywhere.
let server: OwnRedis
let client: Redis
let monitor: Redis
const commands: string[][] = []

beforeAll(async () => {
  server = await ownRedis()
  client = server.client()
  await untilReady(client)
  monitor = await monitorCommands(server.client(), (args) => commands.push(args))
})

afterAll(async () => {
  monitor?.disconnect()
  await stopAll()
  await server.close()
})

it('keeps every key under the prefix, one key a command, no KEYS or SCAN, and no token in the clear', async () => {
  const service = await startEmailService(
    {},
    { redis: client, redisKeyPrefix: 'app:auth:', session: { strategy: 'database' } },
  )
  const browser = new Browser(service)
  const link = await mailedLink(service, browser, newAddress())
  expect((await useLink(service, browser, link)).status).toBe(302)
  const sessionToken = browser.cookie('auth.session-token')!.value
  expect(await browser.session()).toHaveProperty('user')
  await browser.signOut({ everywhere: 'true' })
  await new Promise((resolve) => setTimeout(resolve, 200)) // MONITOR's lines arrive on their own connection

  // The connection's own commands (ioredis's ready check and client name, and the client-side
  // caching's CLIENT TRACKING and SUBSCRIBE to its invalidation channel) name no key.
  const connection = new Set(['monitor', 'info', 'client', 'ping', 'select', 'hello', 'subscribe'])
  const ours = commands.filter(([name]) => !connection.has(name!.toLowerCase()))
  const names = new Set(ours.map(([name]) => name!.toLowerCase()))
  for (const name of ['get', 'set', 'getdel', 'zadd', 'del']) expect(names).toContain(name)
  for (const forbidden of ['keys', 'scan', 'flushall', 'flushdb']) expect(names).not.toContain(forbidden)
  for (const args of ours) {
    const text = args.join(' ')
    expect(text).not.toContain(sessionToken)
    expect(text).not.toContain(link.searchParams.get('token')!)
    // Each command names at most one key of ours (MULTI/EXEC and script loading name none).
    const keys = args.filter((arg) => arg.startsWith('app:auth:'))
    expect(new Set(keys).size).toBeLessThanOrEqual(1)
  }
  // Every command that names a key names one of ours.
  // Scripts' own commands show up too; TIME (the revocations' clock) names no key.
  const keyless = ['multi', 'exec', 'script', 'evalsha', 'eval', 'time']
  const keyed = ours.filter(([name]) => !keyless.includes(name!.toLowerCase()))
  for (const args of keyed) expect(args.join(' ')).toMatch(/^\w+ app:auth:/)
})
