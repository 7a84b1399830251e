import type { Redis } from 'ioredis'
import type { Pool } from 'pg'
import { memoryAccounts, postgresAccounts, redisAccounts, type AccountStore } from '../../lib'
import { databaseUrlForDisplay, redisUrlForDisplay, type DemoSettings } from './settings'

/** Where the demo keeps its users and their ways in, and what it says about that at start. */
export interface DemoAccounts {
  readonly store: AccountStore
  /** One line for the console. */
  readonly where: string
}

/** Milliseconds the demo waits for PostgreSQL's first answer, as it waits for Redis's PING. */
const DATABASE_CHECK_MS = 3000

/**
 * PostgreSQL with DATABASE_URL (its tables made by `migrate()` first), else Redis with REDIS_URL
 * (the demo's one client), else this process's memory: auth() then warns that accounts are lost
 * when the demo stops.
 */
export async function demoAccounts(settings: DemoSettings, redis: Redis | null): Promise<DemoAccounts> {
  if (settings.databaseUrl) {
    const store = postgresAccounts(await connectPostgres(settings.databaseUrl))
    await store.migrate()
    return { store, where: `accounts are kept in PostgreSQL at ${databaseUrlForDisplay(settings.databaseUrl)}` }
  }
  if (redis && settings.redisUrl)
    return {
      store: redisAccounts(redis),
      where: `accounts are kept in Redis at ${redisUrlForDisplay(settings.redisUrl)}`,
    }
  return {
    store: memoryAccounts(),
    where:
      "neither DATABASE_URL nor REDIS_URL is set; accounts live in this process's memory and end when the demo stops",
  }
}

/**
 * A node-postgres pool on DATABASE_URL, checked with one query before the demo says accounts are
 * kept there. `pg` is an optional peer of the package: loaded only here, with DATABASE_URL.
 */
async function connectPostgres(url: string): Promise<Pool> {
  let pg: typeof import('pg')
  try {
    pg = await import('pg')
  } catch (error) {
    throw new Error('DATABASE_URL is set, but the pg package is not installed: npm install pg', { cause: error })
  }
  // Deadlines on every connection and query: a server that stops answering fails a call (503), never hangs it.
  const pool = new pg.Pool({ connectionString: url, connectionTimeoutMillis: DATABASE_CHECK_MS, query_timeout: 5000 })
  try {
    await pool.query('SELECT 1')
  } catch (error) {
    await pool.end().catch(() => undefined)
    // Its code only (ECONNREFUSED, 28P01 for a wrong password, 3D000 for no such database): never its message.
    const code = (error as { code?: unknown } | null)?.code
    const cause = typeof code === 'string' && /^\w{1,32}$/.test(code) ? code : 'no answer'
    throw new Error(
      `DATABASE_URL: PostgreSQL at ${databaseUrlForDisplay(url)} could not be used within ${DATABASE_CHECK_MS} ms (${cause}); start it, or unset DATABASE_URL to keep accounts elsewhere`,
      { cause: error },
    )
  }
  return pool
}
