import { createHash, randomBytes } from 'node:crypto'
import { connect, createServer, type Socket } from 'node:net'
import type { Redis } from 'ioredis'
import request from 'supertest'
import type { AuthOptions } from '../../lib'
import { storeHealth } from '../../lib/infra/store/health'
import { redisRunner } from '../../lib/infra/store/redis'
import type { TrackedReads } from '../../lib/infra/store/redis/held'
import { redisTracking } from '../../lib/infra/store/redis/tracking'
import { makeApp } from './app'

/**
 * For the specs of database sessions held in memory and kept current by Redis's client-side
 * caching (lib/infra/store/redis/): sessions written straight into Redis the way the store writes them
 * (as another instance would), asked for through the app, and a TCP proxy between the app and Redis
 * that can slow, silence or cut each of its connections; and the tracked reads alone, on a clock
 * the spec moves.
 */

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The session id the store derives from a cookie's token (its record's key ends with it). */
export const sessionId = (token: string) => createHash('sha256').update(token).digest('base64url')

export interface Planted {
  token: string
  userId: string
  /** The record's key, `<prefix>sess:<id>`. */
  key: string
  /** The user's index (a sorted set of session ids), `<prefix>idx:<hash of user id>`. */
  index: string
  record: Record<string, unknown>
  /** The Cookie header that carries the session. */
  cookie: string
}

/**
 * A database session valid for an hour, written with `raw` under `prefix` (with any ioredis
 * keyPrefix of the app's client included, since `raw` has none): its record, and its id in its
 * user's index.
 */
export async function plantSession(raw: Redis, prefix: string, name = 'Ada'): Promise<Planted> {
  const token = randomBytes(32).toString('base64url')
  const userId = `user:${randomBytes(6).toString('hex')}`
  const now = Math.floor(Date.now() / 1000)
  const exp = now + 3600
  const sid = sessionId(token)
  const record = {
    cookie: { expires: new Date(exp * 1000).toISOString() },
    sub: userId,
    user: { name },
    iat: now,
    exp,
    auth_time: now,
  }
  const key = `${prefix}sess:${sid}`
  const index = `${prefix}idx:${sessionId(userId)}`
  await raw.set(key, JSON.stringify(record), 'EX', 3600)
  await raw.zadd(index, exp, sid)
  return { token, userId, key, index, record, cookie: `auth.session-token=${token}` }
}

/** `record` written over the planted one, as an update elsewhere would. */
export async function rewrite(raw: Redis, planted: Planted, record: Record<string, unknown>): Promise<void> {
  await raw.set(planted.key, JSON.stringify({ ...planted.record, ...record }), 'EX', 3600)
}

export type App = ReturnType<typeof makeApp>['app']

/**
 * An app with database sessions in `redis` under `prefix` (`options` over those), once its cache's
 * own connection has had the time to come up (300 ms: on loopback it takes a few).
 */
export async function cachedApp(redis: Redis, prefix: string, options: AuthOptions = {}): Promise<App> {
  const { app } = makeApp({ redis, redisKeyPrefix: prefix, session: { strategy: 'database' }, ...options })
  await sleep(300)
  return app
}

/** The body of `GET /api/auth/session` with `cookie`. */
export async function askSession(app: App, cookie: string): Promise<Record<string, unknown>> {
  return (await request(app).get('/api/auth/session').set('Cookie', cookie)).body as Record<string, unknown>
}

/** Asks `times` times and expects a session each time: read from Redis, then held in memory. */
export async function warm(app: App, cookie: string, times = 3): Promise<void> {
  for (let i = 0; i < times; i++) expect(await askSession(app, cookie)).toHaveProperty('user')
}

/** One client connection through the proxy and its own connection on to Redis. */
export interface Link {
  /** 0 for the first connection made through the proxy, 1 for the next, and so on. */
  readonly index: number
  /** Whether the client has sent CLIENT TRACKING here (it is the cache's own connection). */
  tracking: boolean
  /** Closes both sides at once; nothing passes after. */
  cut: () => void
}

/** What the proxy does to each link; every rule is asked again for each chunk. */
export interface ProxyRules {
  /** Extra delay, in ms, of what Redis sends on `link`; chunks keep their order. */
  lagMs?(link: Link): number
  /** While true, nothing passes either way, and the link stays open (a half-open TCP flow). */
  silent?(link: Link): boolean
  /** Sees each chunk the client sends, before it is passed on; may cut the link. */
  inspect?(chunk: Buffer, link: Link): void
}

export interface RedisProxy {
  port: number
  /** Every link so far, in the order they were made. */
  links: Link[]
  /** Cuts every link and stops listening. */
  close(): Promise<void>
}

/** A TCP proxy on 127.0.0.1 in front of the Redis at `target`. */
export async function redisProxy(target: { host: string; port: number }, rules: ProxyRules = {}): Promise<RedisProxy> {
  const links: Link[] = []
  const sockets = new Set<Socket>()
  const server = createServer((client) => {
    const upstream = connect(target.port, target.host)
    for (const socket of [client, upstream]) {
      sockets.add(socket)
      socket.on('close', () => sockets.delete(socket))
    }
    const cut = () => {
      client.destroy()
      upstream.destroy()
    }
    const link: Link = { index: links.length, tracking: false, cut }
    links.push(link)
    client.on('data', (chunk: Buffer) => {
      if (chunk.toString('latin1').toUpperCase().includes('TRACKING')) link.tracking = true
      rules.inspect?.(chunk, link)
      if (!upstream.destroyed && !rules.silent?.(link)) upstream.write(chunk)
    })
    let last = 0
    upstream.on('data', (chunk: Buffer) => {
      if (rules.silent?.(link)) return
      const at = Math.max(Date.now() + (rules.lagMs?.(link) ?? 0), last)
      last = at
      const pass = () => {
        if (client.writable) client.write(chunk)
      }
      if (at <= Date.now()) pass()
      else setTimeout(pass, at - Date.now())
    })
    client.on('close', cut).on('error', cut)
    upstream.on('close', cut).on('error', cut)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as { port: number }).port,
    links,
    async close() {
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/** A monotonic clock in ms that stands still until the spec moves it. */
export function manualClock(start = 1_000_000) {
  let ms = start
  return { now: () => ms, advance: (by: number) => void (ms += by) }
}

/**
 * The tracked reads of keys under `prefixes` over `client` (lib/infra/store/redis/tracking.ts) on the
 * clock `now`, once Redis has confirmed tracking on their connection. The event loop's idle time
 * (what a PONG's vouching also counts, lib/infra/store/redis/liveness.ts) stands still with that clock.
 */
export async function trackedReads(client: Redis, prefixes: string[], now: () => number): Promise<TrackedReads> {
  const runner = redisRunner(
    client,
    '',
    5000,
    storeHealth(() => undefined, 'Redis'),
  )
  const tracked = redisTracking(runner, prefixes, now, () => 0)
  if (!tracked) throw new Error('no tracking on this client')
  for (let i = 0; i < 200; i++) {
    const probe = tracked.read('probe', '', (redis) => redis.get('probe'))
    if (probe) return probe.then(() => tracked)
    await sleep(10)
  }
  throw new Error('tracking never came on')
}

/** `read` of `key`, and whether it went to Redis (`command` ran) or was answered from memory. */
export async function readOf(
  tracked: TrackedReads,
  key: string,
): Promise<{ value: string | null; fromRedis: boolean }> {
  let fromRedis = false
  const value = await tracked.read(key, '', (redis) => {
    fromRedis = true
    return redis.get(key)
  })
  return { value, fromRedis }
}
