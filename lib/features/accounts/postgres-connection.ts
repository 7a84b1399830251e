import { isRecord } from '../../infra/util/object'

/**
 * The little of node-postgres (`pg`) the PostgreSQL account store uses, described here rather than
 * imported: the package loads without `pg`, and its type declarations never send an app's
 * TypeScript looking for `@types/pg`. A `pg.Pool` fits (spec/postgres proves it with pg's own types).
 */
export interface PostgresPool {
  query(text: string, values?: unknown[]): Promise<PostgresResult>
  connect(): Promise<PostgresClient>
  on(event: 'error', listener: (error: Error) => void): unknown
  listenerCount(event: 'error'): number
}

export interface PostgresClient {
  query(text: string, values?: unknown[]): Promise<PostgresResult>
  /** With an error, the pool closes the connection instead of handing it out again. */
  release(error?: Error): void
  on(event: 'error', listener: (error: Error) => void): unknown
  off(event: 'error', listener: (error: Error) => void): unknown
}

export interface PostgresResult {
  readonly rows: unknown[]
  readonly rowCount: number | null
}

/**
 * Makes `pool` safe to hold: an idle connection that breaks (a restart, a killed backend) is
 * reported as the pool's `error` event, and an event without a listener ends the process. The
 * next query gets a new connection, so there is nothing to do here but not crash; an app that
 * listens itself (to log them) keeps its listener alone.
 */
export function guardPool(pool: PostgresPool): void {
  if (pool.listenerCount('error') === 0) pool.on('error', () => undefined)
}

/**
 * Runs `work` in one READ COMMITTED transaction on a connection of its own, and commits. READ
 * COMMITTED whatever the server's default: a statement after a row lock must see what the holder
 * of the lock committed (unlinkAccount counts after it). A connection that broke on the way is
 * released with its error, so that the pool drops it; a connection that breaks while we hold it
 * emits `error` on itself, which would end the process without our listener.
 */
export async function transaction<T>(pool: PostgresPool, work: (client: PostgresClient) => Promise<T>): Promise<T> {
  const client = await pool.connect()
  let broken: Error | undefined
  const onError = (error: Error) => {
    broken = error
  }
  client.on('error', onError)
  try {
    await client.query('BEGIN ISOLATION LEVEL READ COMMITTED')
    const result = await work(client)
    await client.query('COMMIT')
    return result
  } catch (error) {
    // A failed ROLLBACK means the connection is not fit to be handed out again.
    broken ??= await client.query('ROLLBACK').then(
      () => undefined,
      (rollbackError: unknown) => (rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError))),
    )
    throw error
  } finally {
    client.off('error', onError)
    client.release(broken)
  }
}

/** The SQLSTATE and constraint of a database error (`23505` unique, `23503` foreign key), or nothing. */
export function sqlError(error: unknown): { code?: string; constraint?: string } {
  if (!isRecord(error)) return {}
  const { code, constraint } = error
  return {
    ...(typeof code === 'string' ? { code } : {}),
    ...(typeof constraint === 'string' ? { constraint } : {}),
  }
}
