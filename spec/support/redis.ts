import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { createServer, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Redis, { Cluster, type ClusterOptions, type RedisOptions } from 'ioredis'
import { freePort, startProcess, type Started } from './process'

/**
 * Real Redis servers on loopback for the Redis specs. `sharedRedis` is the server most specs share:
 * REDIS_URL when set, else one `redis-server` per Jest worker, started on first use. Specs sharing
 * it keep to keys under their own `prefix` and delete only those (never FLUSHALL or FLUSHDB on a
 * server they did not start). `ownRedis` is a server of the spec's own that it can stop and start
 * again mid-test (the fault specs); `redisCluster` is a three-master Redis Cluster. No server keeps
 * anything on disk: no RDB, no AOF, each in a temporary folder of its own.
 *
 * Every redis-server started here has a watchdog (a detached `sh` loop) that kills it and removes
 * its folder once the Jest worker that started it is gone, however the worker ended.
 */

/** The server a spec shares with the other specs of its worker (or REDIS_URL). */
export interface SharedRedis {
  /** `redis://127.0.0.1:<port>`, or REDIS_URL as given. */
  url: string
  /** A new ioredis client on `url` (options merged), closed by `close()`. */
  client(options?: RedisOptions): Redis
  /** A key prefix no other call hands out: `test:<name>:<pid>:<random>:`. */
  prefix(name: string): string
  /** Deletes every key starting with `prefix` (SCAN MATCH and DEL), nothing else; the number deleted. */
  deleteKeys(prefix: string): Promise<number>
  /** Closes every client this object made. The server stays up for the worker's other specs. */
  close(): Promise<void>
}

/** A redis-server of the spec's own, to stop and start again on the same port. */
export interface OwnRedis {
  port: number
  /** `redis://127.0.0.1:<port>`. */
  url: string
  /**
   * A new ioredis client (options merged over `retryStrategy: () => 100`, so it reconnects within
   * 100 ms of the server being back), closed by `close()`.
   */
  client(options?: RedisOptions): Redis
  /** Stops the server (SIGTERM, SIGKILL after 5 s, or `signal` at once); resolves once it has exited. */
  stop(signal?: 'SIGTERM' | 'SIGKILL'): Promise<void>
  /** Starts it again on the same port (empty: nothing persists); resolves once it accepts connections. */
  start(): Promise<void>
  /** Closes every client, stops the server and removes its folder. */
  close(): Promise<void>
}

/** A three-master Redis Cluster on loopback (replicas: see redisCluster), every node agreeing on `cluster_state:ok`. */
export interface TestCluster {
  nodes: Array<{ host: string; port: number }>
  /** A new ioredis Cluster client over `nodes` (options merged), closed by `close()`. */
  client(options?: ClusterOptions): Cluster
  /** SIGKILLs the node on `port` (a failover when it is a master with a replica). */
  kill(port: number): Promise<void>
  /** Closes every client, kills the nodes and removes their folders. */
  close(): Promise<void>
}

const host = '127.0.0.1'

/**
 * The shared server: REDIS_URL when set, else this worker's redis-server (started by the first call,
 * reused by every later one in the worker, whichever spec file makes it).
 */
export async function sharedRedis(): Promise<SharedRedis> {
  const url = process.env.REDIS_URL || (await workerServer())
  const clients = new Clients<Redis>()
  let admin: Redis | undefined
  return {
    url,
    client: (options) => clients.add(new Redis(url, { ...options })),
    prefix: (name) => `test:${name}:${process.pid}:${randomBytes(6).toString('hex')}:`,
    async deleteKeys(prefix) {
      if (!prefix) throw new Error('deleteKeys needs a prefix')
      admin ??= clients.add(new Redis(url))
      const match = `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`
      let cursor = '0'
      let deleted = 0
      do {
        const [next, keys] = await admin.scan(cursor, 'MATCH', match, 'COUNT', 500)
        cursor = next
        if (keys.length > 0) deleted += await admin.del(...keys)
      } while (cursor !== '0')
      return deleted
    },
    close: () => clients.close(),
  }
}

/** What sharedRedisForFile gives a spec file: filled in by its `beforeAll`, so read in tests only. */
export interface RedisForFile {
  redis: SharedRedis
  /** A client of its own, answering (PINGed) before the first test. */
  client: Redis
  /** A key prefix of the file's own, whose keys are deleted after the last test. */
  prefix: string
}

/**
 * The shared Redis for one spec file: opened, with a client and a prefix, before its first test;
 * the prefix's keys deleted and every client closed after its last. Call it at the file's top level.
 */
export function sharedRedisForFile(name: string): RedisForFile {
  const file = {} as RedisForFile
  beforeAll(async () => {
    file.redis = await sharedRedis()
    file.client = file.redis.client()
    await file.client.ping()
    file.prefix = file.redis.prefix(name)
  })
  afterAll(async () => {
    await file.redis?.deleteKeys(file.prefix)
    await file.redis?.close()
  })
  return file
}

/**
 * Stops this worker's shared redis-server, if it started one (for an afterAll; without it the server
 * goes when the worker does). A later `sharedRedis()` starts a new one.
 */
export async function stopSharedRedis(): Promise<void> {
  const server = registry[sharedKey]
  delete registry[sharedKey]
  if (server) await (await server.catch(() => undefined))?.stop()
}

/** A redis-server of the spec's own on a free port; the fault specs stop and start it mid-test. */
export async function ownRedis(): Promise<OwnRedis> {
  const dir = await mkdtemp(join(tmpdir(), 'redis-own-'))
  const clients = new Clients<Redis>()
  let server: Server | undefined
  try {
    server = await onFreePort((port) => redisServer(port, dir))
  } catch (error) {
    await rm(dir, { recursive: true, force: true })
    throw error
  }
  const port = server.port
  const stop = async (signal?: 'SIGTERM' | 'SIGKILL') => {
    const running = server
    server = undefined
    if (running) await halt(running.child, signal)
  }
  return {
    port,
    url: `redis://${host}:${port}`,
    client: (options) => clients.add(new Redis({ host, port, retryStrategy: () => 100, ...options })),
    stop,
    async start() {
      server ??= await redisServer(port, dir)
    },
    async close() {
      await clients.close()
      await stop()
      await rm(dir, { recursive: true, force: true })
    },
  }
}

/**
 * Three `redis-server --cluster-enabled yes` nodes on loopback, each on a port whose cluster bus
 * (port + 10000) is free too, joined by `redis-cli --cluster create` (with `replicas: 1`, three
 * more nodes, one replica of each master); resolves once every node reports `cluster_state:ok`.
 * Takes a few seconds.
 */
export async function redisCluster({ replicas = 0 }: { replicas?: 0 | 1 } = {}): Promise<TestCluster> {
  const dir = await mkdtemp(join(tmpdir(), 'redis-cluster-'))
  const servers: Server[] = []
  const clients = new Clients<Cluster>()
  const close = async () => {
    await clients.close()
    await Promise.all(servers.map((server) => halt(server.child)))
    await rm(dir, { recursive: true, force: true })
  }
  try {
    const taken = new Set<number>()
    for (let i = 0; i < 3 * (1 + replicas); i++) {
      const server = await onFreePort(
        async (port) => {
          const folder = join(dir, String(port))
          await mkdir(folder)
          const config = ['--cluster-enabled', 'yes', '--cluster-config-file', join(folder, 'nodes.conf')]
          return redisServer(port, folder, [...config, '--cluster-node-timeout', '2000'], dir)
        },
        () => clusterPort(taken),
      )
      servers.push(server)
    }
    const addresses = servers.map((server) => `${host}:${server.port}`)
    await run('redis-cli', [
      '--cluster',
      'create',
      ...addresses,
      '--cluster-replicas',
      String(replicas),
      '--cluster-yes',
    ])
    await until('cluster_state:ok on every node', async () => {
      const infos = await Promise.all(servers.map((server) => cli(server.port, 'CLUSTER', 'INFO')))
      return infos.every((info) => /^cluster_state:ok$/m.test(info))
    })
  } catch (error) {
    await close()
    throw error
  }
  const nodes = servers.map((server) => ({ host, port: server.port }))
  return {
    nodes,
    client: (options) => clients.add(new Cluster(nodes, { ...options })),
    async kill(port) {
      const server = servers.find((candidate) => candidate.port === port)
      if (server) await halt(server.child, 'SIGKILL')
    },
    close,
  }
}

/**
 * Resolves once `client` is connected and ready (at once when it is); for clients with
 * `enableOfflineQueue: false`, which refuse commands until then.
 */
export async function untilReady(client: Redis | Cluster, timeoutMs = 10_000): Promise<void> {
  if (client.status === 'ready') return
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      client.off('ready', ready)
      reject(new Error(`redis client not ready after ${timeoutMs} ms (status ${client.status})`))
    }, timeoutMs)
    const ready = () => {
      clearTimeout(timer)
      resolve()
    }
    client.once('ready', ready)
  })
}

// Jest gives every spec file a module registry and globals of its own, but Node's built-in modules
// are the same objects for the whole worker: the worker's shared server is kept on one of them.
const registry = require('node:child_process') as Record<symbol, Promise<WorkerServer> | undefined>
const sharedKey = Symbol.for('express-auth-service:spec:shared-redis')

/** A redis-server this file started, and its port. */
type Server = Started & { port: number }

interface WorkerServer {
  url: string
  child: ChildProcess
  stop(): Promise<void>
}

async function workerServer(): Promise<string> {
  const known = registry[sharedKey]
  if (known) {
    const server = await known.catch(() => undefined)
    if (server && !exited(server.child)) return server.url
    if (registry[sharedKey] === known) delete registry[sharedKey]
    return workerServer()
  }
  const starting = startWorkerServer()
  registry[sharedKey] = starting
  starting.catch(() => {
    if (registry[sharedKey] === starting) delete registry[sharedKey]
  })
  return (await starting).url
}

async function startWorkerServer(): Promise<WorkerServer> {
  const dir = await mkdtemp(join(tmpdir(), 'redis-shared-'))
  try {
    const server = await onFreePort((port) => redisServer(port, dir))
    // It outlives the spec file that started it: nothing of it may keep the worker (or Jest's
    // open-handle check) waiting. The watchdog stops it when the worker is gone.
    server.child.unref()
    for (const stream of [server.child.stdout, server.child.stderr]) (stream as Socket | null)?.unref()
    return {
      url: `redis://${host}:${server.port}`,
      child: server.child,
      async stop() {
        await halt(server.child)
        await rm(dir, { recursive: true, force: true })
      },
    }
  } catch (error) {
    await rm(dir, { recursive: true, force: true })
    throw error
  }
}

/** Starts redis-server on `port` in `dir` with nothing persisted, and its watchdog (removing `folder`). */
export async function redisServer(port: number, dir: string, extra: string[] = [], folder = dir): Promise<Server> {
  const args = ['--port', String(port), '--bind', host, '--save', '', '--appendonly', 'no', '--dir', dir, ...extra]
  const server = await startProcess('redis-server', args, { ready: /Ready to accept connections/, timeoutMs: 20_000 })
  watch(server.child.pid!, folder)
  return { ...server, port }
}

/**
 * Runs `start` on a free port, again on another one (up to 5 times) when someone took the port in
 * the meantime (another worker, between freePort and redis-server's bind).
 */
export async function onFreePort<T>(
  start: (port: number) => Promise<T>,
  pick: () => Promise<number> = freePort,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start(await pick())
    } catch (error) {
      if (attempt >= 5 || !/Address already in use/i.test(String(error))) throw error
    }
  }
}

/** A free port whose cluster bus port (port + 10000) is free too, neither in `taken` (then added). */
async function clusterPort(taken: Set<number>): Promise<number> {
  for (;;) {
    const port = await freePort()
    const bus = port + 10000
    if (bus > 65535 || [port, bus].some((p) => taken.has(p) || taken.has(p - 10000))) continue
    if (!(await isFree(bus))) continue
    taken.add(port).add(bus)
    return port
  }
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer()
    server.once('error', () => resolve(false))
    server.listen(port, host, () => server.close(() => resolve(true)))
  })
}

/**
 * A detached `sh` loop that, once the worker (this process) is gone, SIGKILLs the redis-server's
 * process group and removes its folder; it ends by itself when the server does.
 */
export function watch(pid: number, dir: string): void {
  const script =
    'while kill -0 "$1" 2>/dev/null; do kill -0 "$2" 2>/dev/null || exit 0; sleep 1; done; ' +
    'kill -KILL "-$2" 2>/dev/null; sleep 0.2; rm -rf -- "$3"'
  const watchdog = spawn('sh', ['-c', script, 'redis-watchdog', String(process.pid), String(pid), dir], {
    detached: true,
    stdio: 'ignore',
  })
  watchdog.unref()
}

/** SIGTERM to the process group (or `signal` right away), SIGKILL after 5 s; resolves once it exited. */
export function halt(child: ChildProcess, signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Promise<void> {
  return new Promise((resolve) => {
    if (exited(child)) return resolve()
    const timer = setTimeout(() => kill(child, 'SIGKILL'), 5000)
    child.once('exit', () => {
      clearTimeout(timer)
      resolve()
    })
    kill(child, signal)
  })
}

function kill(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal)
  } catch {
    // Already gone: 'exit' comes (or came) all the same.
  }
}

function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null
}

/** `redis-cli -h 127.0.0.1 -p <port> <args>`, its output. */
export function cli(port: number, ...args: string[]): Promise<string> {
  return run('redis-cli', ['-h', host, '-p', String(port), ...args])
}

function run(command: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { timeout: 30_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${command} ${args.join(' ')}: ${error.message}\n${stdout}${stderr}`))
      else resolve(stdout)
    })
  })
}

export async function until(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** The clients a helper made, to close them all: QUIT when connected, else disconnect. */
class Clients<C extends Redis | Cluster> {
  private readonly all: C[] = []

  add(client: C): C {
    this.all.push(client)
    return client
  }

  async close(): Promise<void> {
    const closing = this.all.splice(0).map(async (client) => {
      if (client.status === 'end') return
      const ended = new Promise<void>((resolve) => {
        client.once('end', () => resolve())
        setTimeout(resolve, 2000).unref()
      })
      if (client.status === 'ready') await client.quit().catch(() => client.disconnect())
      else client.disconnect()
      await ended
    })
    await Promise.all(closing)
  }
}

/**
 * A server of the spec file's own (`ownRedis`) for all its tests: started before the first, closed
 * after the last. Call it at the file's top level; what it returns gives the server, in a test.
 */
export function ownRedisForFile(): () => OwnRedis {
  let own: OwnRedis | undefined
  beforeAll(async () => {
    own = await ownRedis()
  })
  afterAll(async () => {
    await own?.close()
  })
  return () => {
    if (!own) throw new Error('ownRedisForFile: no server yet (ask for it inside a test)')
    return own
  }
}

/**
 * A MONITOR connection from `client` that hands each command Redis runs to `onCommand`.
 *
 * ioredis switches a connection into monitoring mode one tick after MONITOR's "OK": a line that
 * arrives in the same read as that "OK" finds no command waiting and is reported as an `error`
 * ("Command queue state error"). Its own `monitor()` rejects on such an error, so the connection is
 * made here, its errors ignored from the start, and this resolves once it is monitoring. Such a line
 * was sent before this promise resolves, so no command a spec runs afterwards can be lost to it.
 */
export async function monitorCommands(client: Redis, onCommand: (args: string[]) => void): Promise<Redis> {
  const monitor = client.duplicate({ monitor: true, lazyConnect: true })
  monitor.on('error', () => undefined)
  monitor.on('monitor', (_time: string, args: string[]) => onCommand(args))
  const monitoring = new Promise<void>((resolve) => monitor.once('monitoring', () => resolve()))
  await monitor.connect()
  await monitoring
  return monitor
}
