import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { chown, mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Pool, type PoolConfig } from 'pg'
import { startProcess, type Started } from './process'
import { onFreePort, watch } from './redis'

/**
 * Real PostgreSQL for the PostgreSQL specs. `postgresForFile` gives a spec file a schema of its own
 * in the machine's server (POSTGRES_URL when set, else postgres@127.0.0.1:5432, database `test`,
 * trust authentication), created before its first test and dropped with everything in it after
 * its last, so spec files in parallel workers never see each other's tables. `ownPostgres` is a
 * server of the spec's own (initdb into a temporary folder), to stop and start again mid-test; the
 * machine's server is shared and never restarted by a spec.
 */

/** What postgresForFile gives a spec file: filled in by its `beforeAll`, so read in tests only. */
export interface PostgresForFile {
  /** The file's schema: `test_<name>_<random>`, dropped (CASCADE) after its last test. */
  schema: string
  /** A pool whose `search_path` is the file's schema (config merged); closed after the last test. */
  pool(config?: PoolConfig): Pool
  /** A pool of the file's own for what a test does beside the store (locks, pg_terminate_backend). */
  admin: Pool
}

/** A PostgreSQL server of the spec's own, to stop and start again on the same port. */
export interface OwnPostgres {
  port: number
  /** `postgres://postgres@127.0.0.1:<port>/postgres`. */
  url: string
  /** A new pool on the server (config merged over a 2 s connection timeout), closed by `close()`. */
  pool(config?: PoolConfig): Pool
  /**
   * Stops the server: `fast` (the default, what a restart does) ends every connection and shuts
   * down cleanly; `immediate` is a crash, recovered from the WAL at the next start. Resolves once
   * it has exited.
   */
  stop(mode?: 'fast' | 'immediate'): Promise<void>
  /** Starts it again on the same port, with everything it held; resolves once it accepts connections. */
  start(): Promise<void>
  /** Closes every pool, stops the server and removes its folder. */
  close(): Promise<void>
}

const host = '127.0.0.1'
const sharedUrl = () => process.env.POSTGRES_URL || `postgres://postgres@${host}:5432/test`

/**
 * The machine's server for one spec file, under a schema of its own. Call it at the file's top
 * level. When the server is down, the first test's error says how to start it.
 */
export function postgresForFile(name: string): PostgresForFile {
  const pools = new Pools()
  const file = {} as PostgresForFile
  beforeAll(async () => {
    file.schema = `test_${name.replace(/\W/g, '_').toLowerCase()}_${randomBytes(6).toString('hex')}`
    file.admin = pools.add(new Pool({ connectionString: sharedUrl(), max: 4 }))
    file.admin.on('error', () => undefined)
    try {
      await file.admin.query(`CREATE SCHEMA "${file.schema}"`)
    } catch (error) {
      throw new Error(
        `PostgreSQL at ${sharedUrl()} did not answer (${String(error)}); start it with ` +
          '`pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start`',
        { cause: error },
      )
    }
    file.pool = (config) =>
      pools.add(new Pool({ connectionString: sharedUrl(), options: `-c search_path=${file.schema}`, ...config }))
  })
  afterAll(async () => {
    if (file.admin) await file.admin.query(`DROP SCHEMA IF EXISTS "${file.schema}" CASCADE`)
    await pools.close()
  })
  return file
}

/**
 * A server of the spec's own on a free port: `initdb` into a temporary folder (trust
 * authentication, its socket in that folder too), run as the `postgres` OS user when the specs run
 * as root (PostgreSQL refuses root). The pools it hands out have no `error` listener of the
 * helper's: what is under test adds its own. Takes a second or two.
 */
export async function ownPostgres(): Promise<OwnPostgres> {
  const dir = await mkdtemp(join(tmpdir(), 'postgres-own-'))
  const data = join(dir, 'data')
  const pools = new Pools()
  let server: Started | undefined
  let port: number
  try {
    if (asRoot())
      await chown(dir, Number(await run('id', ['-u', 'postgres'])), Number(await run('id', ['-g', 'postgres'])))
    const bin = await binaries()
    await run(
      ...asPostgres(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-sync']),
    )
    ;[server, port] = await onFreePort(async (free) => [await postmaster(data, dir, free), free] as const)
  } catch (error) {
    await rm(dir, { recursive: true, force: true })
    throw error
  }
  const stop = async (mode: 'fast' | 'immediate' = 'fast') => {
    const running = server
    server = undefined
    if (running) await shutDown(running, data, mode)
  }
  const url = `postgres://postgres@${host}:${port}/postgres`
  return {
    port,
    url,
    pool: (config) => pools.add(new Pool({ connectionString: url, connectionTimeoutMillis: 2000, ...config })),
    stop,
    async start() {
      server ??= await postmaster(data, dir, port)
    },
    async close() {
      await pools.close()
      await stop()
      await rm(dir, { recursive: true, force: true })
    },
  }
}

async function postmaster(data: string, dir: string, port: number): Promise<Started> {
  const settings = [
    'listen_addresses=127.0.0.1',
    `unix_socket_directories=${dir}`,
    'fsync=off',
    'logging_collector=off',
  ]
  const args = ['-D', data, '-p', String(port), ...settings.flatMap((setting) => ['-c', setting])]
  const started = await startProcess(...asPostgres(join(await binaries(), 'postgres'), args), {
    ready: /database system is ready to accept connections/,
    timeoutMs: 30_000,
  })
  watch(started.child.pid!, dir)
  return started
}

/**
 * SIGINT is PostgreSQL's fast shutdown, SIGQUIT its immediate one (SIGTERM, "smart", would wait
 * for every client to leave, and a pool never does), sent to the postmaster alone (its pid is the
 * first line of postmaster.pid; runuser stands between it and us); SIGKILL to the process group
 * when it is not gone after 10 s.
 */
async function shutDown(server: Started, data: string, mode: 'fast' | 'immediate'): Promise<void> {
  const { child } = server
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const pid = Number((await readFile(join(data, 'postmaster.pid'), 'utf8')).split('\n')[0])
  process.kill(pid, mode === 'fast' ? 'SIGINT' : 'SIGQUIT')
  const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 10_000)
  await exited
  clearTimeout(timer)
}

/** The newest installed PostgreSQL's bin folder (Debian keeps each major version apart). */
async function binaries(): Promise<string> {
  const versions = (await readdir('/usr/lib/postgresql')).filter((name) => /^\d+$/.test(name))
  const newest = versions.sort((a, b) => Number(a) - Number(b)).pop()
  if (!newest) throw new Error('no PostgreSQL under /usr/lib/postgresql: apt-get install postgresql')
  return join('/usr/lib/postgresql', newest, 'bin')
}

const asRoot = () => process.getuid?.() === 0

function asPostgres(command: string, args: string[]): [string, string[]] {
  return asRoot() ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args]
}

function run(command: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { timeout: 60_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${command} ${args.join(' ')}: ${error.message}\n${stdout}${stderr}`))
      else resolve(stdout.trim())
    })
  })
}

class Pools {
  private readonly open = new Set<Pool>()

  add(pool: Pool): Pool {
    this.open.add(pool)
    return pool
  }

  async close(): Promise<void> {
    const pools = [...this.open]
    this.open.clear()
    await Promise.all(pools.map((pool) => pool.end().catch(() => undefined)))
  }
}
