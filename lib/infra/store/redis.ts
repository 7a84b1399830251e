import type { Cluster, Redis } from 'ioredis'
import { guarded, NotConnected, unavailable } from './guarded'
import type { StoreHealth } from './health'
import { NO_TELEMETRY, type Telemetry } from '../telemetry'

/** An ioredis client or Cluster client, created and owned by the app. */
export type RedisClient = Redis | Cluster

/** Every command the package sends to Redis goes through here. */
export interface RedisRunner {
  readonly client: RedisClient
  /** `prefix` + the parts joined by ':'. */
  key(...parts: string[]): string
  /**
   * Runs one command under the deadline. While the client makes a connection, the command waits for
   * its outcome (so an app that serves before Redis is ready answers its first requests); otherwise a
   * client that is not connected is a 503 (`ServiceUnavailable`) at once, so no request waits in
   * ioredis's offline queue; the same when Redis does not answer within the deadline.
   */
  run<T>(command: (client: RedisClient) => Promise<T>): Promise<T>
}

/** Statuses in which a command goes out at once (`wait`: a `lazyConnect` client connects on its first command). */
const SENDING: ReadonlySet<string> = new Set(['ready', 'wait'])
/** Statuses of a connection being made: the command waits for it to be ready or to fail. */
const CONNECTING: ReadonlySet<string> = new Set(['connecting', 'connect'])

/** A span's attributes for a Redis call (lib/infra/telemetry): the same object every time. */
const REDIS_SPAN = Object.freeze({ 'db.system.name': 'redis' })

/** `telemetry`: each command in a child span `auth.redis` of the request's (while tracing is on). */
export function redisRunner(
  client: RedisClient,
  prefix: string,
  timeout: number,
  health: StoreHealth,
  telemetry: Telemetry = NO_TELEMETRY,
): RedisRunner {
  /** The outcome of the connection being made, shared by every command that waits for it. */
  let attempt: Promise<boolean> | undefined
  function connection(): Promise<boolean> {
    attempt ??= new Promise<boolean>((resolve) => {
      const settle = (ready: boolean) => () => {
        for (const [event, listener] of listeners) client.off(event, listener)
        attempt = undefined
        resolve(ready)
      }
      const listeners: Array<[string, () => void]> = [
        ['ready', settle(true)],
        ['close', settle(false)],
        ['end', settle(false)],
        ['error', settle(false)],
      ]
      for (const [event, listener] of listeners) client.on(event, listener)
    })
    return attempt
  }

  return Object.freeze({
    client,
    key: (...parts: string[]) => prefix + parts.join(':'),
    run<T>(command: (client: RedisClient) => Promise<T>): Promise<T> {
      return telemetry.span('auth.redis', REDIS_SPAN, () => runNow(command))
    },
  })

  async function runNow<T>(command: (client: RedisClient) => Promise<T>): Promise<T> {
    if (SENDING.has(client.status)) return guarded(() => command(client), timeout, health)
    if (CONNECTING.has(client.status)) {
      return guarded(
        async () => {
          if (await connection()) return command(client)
          throw new NotConnected(client.status)
        },
        timeout,
        health,
      )
    }
    health.failed(`the client is ${client.status}`)
    throw unavailable(`Redis is not connected (${client.status})`)
  }
}

/** Whether a value looks like an ioredis client or Cluster client (checked at `auth()`). */
export function isRedisClient(value: unknown): value is RedisClient {
  if (typeof value !== 'object' || value === null) return false
  const client = value as Record<string, unknown>
  return (
    typeof client.status === 'string' &&
    ['get', 'set', 'getdel', 'zadd', 'zrange', 'zrem', 'pexpire', 'defineCommand'].every(
      (name) => typeof client[name] === 'function',
    )
  )
}
