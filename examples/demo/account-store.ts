import type { Redis } from 'ioredis'
import * as library from '../../lib'
import { memoryAccounts, type AccountStore } from '../../lib'
import { databaseUrlForDisplay, redisUrlForDisplay, type DemoSettings } from './settings'

/** Where the demo keeps its users and their ways in, and what it says about that at start. */
export interface DemoAccounts {
  readonly store: AccountStore
  /** One line for the console. */
  readonly where: string
}

/** The little of node-postgres's Pool the demo uses. */
interface Pool {
  query(text: string): Promise<unknown>
  end(): Promise<void>
}

type RedisAccounts = (redis: Redis, options?: { prefix?: string }) => AccountStore
type PostgresAccounts = (
  pool: Pool,
  options?: { tablePrefix?: string; schema?: string },
) => AccountStore & { migrate(): Promise<void> }

/** Milliseconds the demo waits for PostgreSQL's first answer, as it waits for Redis's PING. */
const DATABASE_CHECK_MS = 3000

/**
 * PostgreSQL with DATABASE_URL (its tables made by `migrate()` first), else Redis with REDIS_URL
 * (the demo's one client), else this process's memory: auth() then warns that accounts are lost
 * when the demo stops.
 */
export async function demoAccounts(settings: DemoSettings, redis: Redis | null): Promise<DemoAccounts> {
  const inMemory = (why: string): DemoAccounts => ({
    store: memoryAccounts(),
    where: `${why}; accounts live in this process's memory and end when the demo stops`,
  })
  if (settings.databaseUrl) {
    const postgresAccounts = packageFactory<PostgresAccounts>('postgresAccounts')
    if (!postgresAccounts)
      return inMemory('DATABASE_URL is set, but this build of the package has no postgresAccounts()')
    const pool = await connectPostgres(settings.databaseUrl)
    const store = postgresAccounts(pool)
    await store.migrate()
    const where = `accounts are kept in PostgreSQL at ${databaseUrlForDisplay(settings.databaseUrl)}`
    return { store, where }
  }
  if (redis && settings.redisUrl) {
    const redisAccounts = packageFactory<RedisAccounts>('redisAccounts')
    if (!redisAccounts) return inMemory('REDIS_URL is set, but this build of the package has no redisAccounts()')
    const where = `accounts are kept in Redis at ${redisUrlForDisplay(settings.redisUrl)}`
    return { store: redisAccounts(redis), where }
  }
  return inMemory('neither DATABASE_URL nor REDIS_URL is set')
}

/**
 * A store factory of the package, looked up by name rather than imported: the Redis and
 * PostgreSQL stores are newer than the demo's other code, and a build without one still starts
 * (in memory, saying so) instead of failing to load.
 */
function packageFactory<T>(name: 'redisAccounts' | 'postgresAccounts'): T | undefined {
  const found: unknown = (library as Record<string, unknown>)[name]
  return typeof found === 'function' ? (found as T) : undefined
}

/**
 * A node-postgres pool on DATABASE_URL, checked with one query before the demo says accounts are
 * kept there. `pg` is an optional peer of the package: it is loaded only here, by name, so that
 * the demo builds and runs without it unless DATABASE_URL is set.
 */
async function connectPostgres(url: string): Promise<Pool> {
  const moduleName = 'pg'
  let pg: { Pool: new (config: object) => Pool & { on(event: 'error', listener: () => void): unknown } }
  try {
    pg = (await import(moduleName)) as typeof pg
  } catch (error) {
    throw new Error('DATABASE_URL is set, but the pg package is not installed: npm install pg', { cause: error })
  }
  // Deadlines on every connection and query: a server that stops answering fails a call (503), never hangs it.
  const pool = new pg.Pool({ connectionString: url, connectionTimeoutMillis: DATABASE_CHECK_MS, query_timeout: 5000 })
  // An idle connection that breaks (a restart) is reported here; the next query takes a new one.
  pool.on('error', () => undefined)
  try {
    await pool.query('SELECT 1')
  } catch (error) {
    await pool.end().catch(() => undefined)
    const code = (error as { code?: unknown } | null)?.code
    // Its code only (ECONNREFUSED, 28P01 for a wrong password, 3D000 for no such database): never its message.
    const cause = typeof code === 'string' && /^\w{1,32}$/.test(code) ? code : 'no answer'
    throw new Error(
      `DATABASE_URL: PostgreSQL at ${databaseUrlForDisplay(url)} could not be used within ${DATABASE_CHECK_MS} ms (${cause}); start it, or unset DATABASE_URL to keep accounts elsewhere`,
      { cause: error },
    )
  }
  return pool
}
