import { Cluster, Redis } from 'ioredis'
import { makeApp } from '../support/app'

/**
 * An ioredis client with no `error` listener prints "Unhandled error event" on every retry while
 * Redis is down, and nothing tells the app why: auth() warns once, at start, naming the fix.
 */
describe("a Redis client without an 'error' listener", () => {
  const clients: Array<Redis | Cluster> = []
  afterAll(() => clients.forEach((client) => client.disconnect()))
  const lazy = <T extends Redis | Cluster>(client: T) => (clients.push(client), client)
  // No tracking connection: nothing here connects.
  const start = (redis: Redis | Cluster) => makeApp({ redis, session: { revocationDelay: 0 } }).logs
  const warnings = (logs: ReturnType<typeof start>) =>
    logs.filter((entry) => (entry.event as string) === 'redis.no_error_listener')

  it('is warned about once at start, with the fix', () => {
    const logs = start(lazy(new Redis({ lazyConnect: true })))
    expect(warnings(logs)).toEqual([
      {
        level: 'warn',
        event: 'redis.no_error_listener',
        message: expect.stringContaining("redis.on('error', …)") as string,
      },
    ])
  })

  it('a Cluster client too', () => {
    const logs = start(lazy(new Cluster([{ host: '127.0.0.1', port: 7000 }], { lazyConnect: true })))
    expect(warnings(logs)).toHaveLength(1)
  })

  it('a client with a listener is not warned about', () => {
    const client = lazy(new Redis({ lazyConnect: true }))
    client.on('error', () => undefined)
    expect(warnings(start(client))).toEqual([])
  })
})
