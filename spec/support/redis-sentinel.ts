import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Redis, { type RedisOptions } from 'ioredis'
import { freePort, startProcess, type Started } from './process'
import { cli, halt, onFreePort, redisServer, until, watch } from './redis'

/**
 * Redis Sentinel on loopback, as an app deploys it: a primary, one replica of it and three
 * `redis-server --sentinel` processes watching them (quorum 2, a primary unreachable for 1 s is
 * down), each in a folder of its own under one temporary folder, nothing persisted but the
 * sentinels' own configuration (which they rewrite). `killPrimary` SIGKILLs whichever server is the
 * primary now; the sentinels then promote the replica.
 */
export interface TestSentinel {
  /** The name the sentinels know the primary by. */
  name: string
  sentinels: Array<{ host: string; port: number }>
  /** A new ioredis client through the sentinels (options merged), closed by `close()`. */
  client(options?: RedisOptions): Redis
  /** A new ioredis client straight to one server (no sentinel), closed by `close()`. */
  direct(port: number, options?: RedisOptions): Redis
  /** The port of the primary, as the first sentinel that answers says. */
  primaryPort(): Promise<number>
  /** SIGKILLs the primary now; its port. */
  killPrimary(): Promise<number>
  /** Resolves with the new primary's port once the sentinels name a primary other than `old` and it says it is one. */
  untilPromoted(old: number, timeoutMs?: number): Promise<number>
  /** Closes every client, stops every server and removes the folder. */
  close(): Promise<void>
}

const host = '127.0.0.1'
const NAME = 'eas-primary'

export async function redisSentinel(): Promise<TestSentinel> {
  const dir = await mkdtemp(join(tmpdir(), 'redis-sentinel-'))
  const servers = new Map<number, Started>()
  const clients: Redis[] = []
  const close = async () => {
    // disconnect() of an ended client arms a timer nothing clears.
    for (const client of clients.splice(0)) if (client.status !== 'end') client.disconnect()
    await Promise.all([...servers.values()].map((server) => halt(server.child)))
    await rm(dir, { recursive: true, force: true })
  }
  const data = async (extra: string[] = []) => {
    const server = await onFreePort(async (port) => {
      const folder = join(dir, String(port))
      await mkdir(folder)
      return redisServer(port, folder, extra, dir)
    })
    servers.set(server.port, server)
    return server.port
  }
  const sentinels: Array<{ host: string; port: number }> = []
  try {
    const primary = await data()
    const replica = await data(['--replicaof', host, String(primary)])
    for (let i = 0; i < 3; i++) sentinels.push({ host, port: await sentinel(dir, primary, servers) })
    await until('the replica in sync and every sentinel knowing the others and the replica', async () => {
      const sync = /master_link_status:up/.test(await cli(replica, 'INFO', 'replication'))
      const known = await Promise.all(
        sentinels.map(async ({ port }) => {
          const others = await cli(port, 'SENTINEL', 'SENTINELS', NAME)
          const replicas = await cli(port, 'SENTINEL', 'REPLICAS', NAME)
          return (others.match(/^name$/gm) ?? []).length === 2 && /^name$/m.test(replicas)
        }),
      )
      return sync && known.every(Boolean)
    })
  } catch (error) {
    await close()
    throw error
  }

  async function primaryPort(): Promise<number> {
    for (const { port } of sentinels) {
      const answer = await cli(port, 'SENTINEL', 'GET-MASTER-ADDR-BY-NAME', NAME).catch(() => '')
      const lines = answer.trim().split('\n')
      if (lines.length === 2) return Number(lines[1])
    }
    throw new Error('no sentinel names a primary')
  }
  const add = (client: Redis) => {
    clients.push(client)
    // Refused connections while the primary is down are expected here: no "Unhandled error event".
    client.on('error', () => undefined)
    return client
  }
  return {
    name: NAME,
    sentinels,
    client: (options) => add(new Redis({ sentinels, name: NAME, ...options })),
    direct: (port, options) => add(new Redis({ host, port, ...options })),
    primaryPort,
    async killPrimary() {
      const port = await primaryPort()
      const server = servers.get(port)
      if (server) await halt(server.child, 'SIGKILL')
      servers.delete(port)
      return port
    },
    async untilPromoted(old, timeoutMs = 30_000) {
      let promoted = old
      await until(
        'a replica promoted',
        async () => {
          promoted = await primaryPort().catch(() => old)
          if (promoted === old) return false
          return /^role:master$/m.test(await cli(promoted, 'INFO', 'replication').catch(() => ''))
        },
        timeoutMs,
      )
      return promoted
    },
    close,
  }
}

/** A sentinel watching the primary on `primary`, on a free port; its port. */
async function sentinel(dir: string, primary: number, servers: Map<number, Started>): Promise<number> {
  const port = await freePort()
  const folder = join(dir, `sentinel-${port}`)
  await mkdir(folder)
  const conf = join(folder, 'sentinel.conf')
  await writeFile(
    conf,
    [
      `port ${port}`,
      `bind ${host}`,
      `dir ${folder}`,
      `sentinel monitor ${NAME} ${host} ${primary} 2`,
      `sentinel down-after-milliseconds ${NAME} 1000`,
      `sentinel failover-timeout ${NAME} 5000`,
      `sentinel parallel-syncs ${NAME} 1`,
      '',
    ].join('\n'),
  )
  const started = await startProcess('redis-server', [conf, '--sentinel'], {
    ready: /\+monitor master/,
    timeoutMs: 20_000,
  })
  watch(started.child.pid!, dir)
  servers.set(port, started)
  return port
}
