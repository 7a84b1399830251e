import { ConfigurationError } from '../../infra/errors'
import { describe } from '../../infra/util/options'
import { postgresFactors } from './postgres-factors'
import { guardPool, sqlError, transaction, type PostgresPool } from './postgres-connection'
import {
  accountValues,
  copyAccount,
  copyUser,
  statements,
  toAccount,
  toUser,
  userValues,
  type Statements,
} from './postgres-rows'
import { migrationSql, tableNames, type PostgresAccountsOptions, type TableNames } from './postgres-schema'
import type {
  AccountStore,
  CreateUserResult,
  FactorMethods,
  IdentityKey,
  LinkAccountResult,
  StoredAccount,
  UnlinkAccountResult,
  User,
} from './store'

export type { PostgresAccountsOptions } from './postgres-schema'
export type { PostgresPool } from './postgres-connection'

/** The PostgreSQL account store, and what creates its tables. */
export interface PostgresAccountStore extends Omit<AccountStore, keyof FactorMethods>, FactorMethods {
  /**
   * Creates the tables and indexes that are missing (docs/accounts-postgres.md has the SQL): safe
   * to run at every start, from every instance at once.
   */
  migrate(): Promise<void>
  setPasswordHash(userId: string, accountId: string, hash: string): Promise<boolean>
}

/** How often a write whose conflicting row was gone by the time we read it is tried again. */
const ATTEMPTS = 3

/** What the store's functions share. */
interface Tables {
  readonly pool: PostgresPool
  readonly names: TableNames
  readonly sql: Statements
}

/**
 * Users and accounts in PostgreSQL over the app's node-postgres pool. The database keeps the rules
 * (docs/accounts-postgres.md): the identity's UNIQUE constraint, the unique index on a verified
 * address, the foreign key to the user; a write that breaks one is told apart by the constraint's
 * name. Every method throws when the database cannot be reached, and the pool heals by itself.
 */
export function postgresAccounts(pool: PostgresPool, options?: PostgresAccountsOptions): PostgresAccountStore {
  if (!isPool(pool))
    throw new ConfigurationError(
      `postgresAccounts(pool) takes a node-postgres Pool, such as new Pool({ connectionString }); got ${describe(pool)}`,
    )
  const names = tableNames(options)
  const tables: Tables = { pool, names, sql: statements(names) }
  guardPool(pool)
  const rows = async (text: string, values: unknown[]) => (await pool.query(text, values)).rows
  return Object.freeze({
    migrate: () => migrate(tables),
    findAccount: (identity: IdentityKey) => findAccount(tables, identity),
    getUser: async (userId: string) => (await rows(tables.sql.getUser, [userId])).map(toUser)[0] ?? null,
    findUserByVerifiedEmail: (email: string) => findUserByVerifiedEmail(tables, email),
    createUser: (user: User, account: StoredAccount | null) => createUser(tables, user, account),
    linkAccount: (account: StoredAccount) => linkAccount(tables, account),
    unlinkAccount: (userId: string, accountId: string, keptElsewhere: number) =>
      unlinkAccount(tables, userId, accountId, keptElsewhere),
    listAccounts: async (userId: string) => (await rows(tables.sql.listAccounts, [userId])).map(toAccount),
    async touchAccount(userId: string, accountId: string, at: Date) {
      await pool.query(tables.sql.touchAccount, [userId, accountId, at])
    },
    // One UPDATE of a row that is there: an account unlinked (or a user deleted) first stays gone.
    setPasswordHash: async (userId: string, accountId: string, hash: string) =>
      ((await pool.query(tables.sql.setPasswordHash, [userId, accountId, hash])).rowCount ?? 0) > 0,
    deleteUser: async (userId: string) => ((await pool.query(tables.sql.deleteUser, [userId])).rowCount ?? 0) > 0,
    ...postgresFactors(pool, names),
  })
}

function migrate({ pool, names }: Tables): Promise<void> {
  return transaction(pool, async (client) => {
    // Two processes creating one table at once can fail (a duplicate in pg_type): one at a time.
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [names.lockName])
    for (const statement of migrationSql(names)) await client.query(statement)
  })
}

async function findAccount({ pool, sql }: Tables, { provider, issuer, subject }: IdentityKey) {
  const { rows } = await pool.query(sql.findAccount, [provider, issuer, subject])
  return rows.map(toAccount)[0] ?? null
}

async function findUserByVerifiedEmail({ pool, sql }: Tables, email: string) {
  return (await pool.query(sql.findByEmail, [email])).rows.map(toUser)[0] ?? null
}

/** Both rows in one transaction (the user alone when `account` is null); a unique rule it breaks says which answer it gets. */
async function createUser(tables: Tables, user: User, account: StoredAccount | null): Promise<CreateUserResult> {
  if (account && account.userId !== user.id) throw new TypeError('createUser: account.userId must be user.id')
  for (let attempt = 1; ; attempt++) {
    try {
      await transaction(tables.pool, async (client) => {
        await client.query(tables.sql.insertUser, userValues(user))
        if (account) await client.query(tables.sql.insertAccount, accountValues(account))
      })
      return { kind: 'created', user: copyUser(user), account: account && copyAccount(account) }
    } catch (error) {
      const { code, constraint } = sqlError(error)
      if (code !== '23505' || constraint === tables.names.constraints.accountKey) throw error
      const answer = await refusal(tables, constraint, user, account)
      if (answer) return answer
      if (attempt === ATTEMPTS) throw error
    }
  }
}

/**
 * Why a createUser that broke a unique rule created nothing, in the order memoryAccounts() answers:
 * the user's id, the identity, the verified address. Null when the row in the way is gone by now,
 * so that the caller tries again.
 */
async function refusal(
  tables: Tables,
  constraint: string | undefined,
  user: User,
  account: StoredAccount | null,
): Promise<CreateUserResult | null> {
  const { constraints } = tables.names
  if (constraint === constraints.userKey) return { kind: 'userExists' }
  const taken = account && (await findAccount(tables, account))
  if (taken) return { kind: 'identityTaken', account: taken }
  if (constraint !== constraints.verifiedEmail || user.email === null) return null
  const owner = await findUserByVerifiedEmail(tables, user.email)
  return owner && { kind: 'emailTaken', user: owner }
}

async function linkAccount(tables: Tables, account: StoredAccount): Promise<LinkAccountResult> {
  const { constraints } = tables.names
  for (let attempt = 1; ; attempt++) {
    try {
      await tables.pool.query(tables.sql.insertAccount, accountValues(account))
      return { kind: 'linked', account: copyAccount(account) }
    } catch (error) {
      const { code, constraint } = sqlError(error)
      // The foreign key: no such user, or one deleted first (the check locks the user's row).
      if (code === '23503' && constraint === constraints.accountUser) return { kind: 'noUser' }
      if (code !== '23505' || constraint !== constraints.identity) throw error
      const taken = await findAccount(tables, account)
      if (taken) return { kind: 'identityTaken', account: taken }
      if (attempt === ATTEMPTS) throw error
    }
  }
}

function unlinkAccount(
  { pool, sql }: Tables,
  userId: string,
  accountId: string,
  keptElsewhere: number,
): Promise<UnlinkAccountResult> {
  return transaction(pool, async (client) => {
    // Two unlinks of one user's accounts take turns on the user's row, so that the second counts
    // after the first; NO KEY UPDATE leaves linkAccount's foreign-key check unblocked.
    if ((await client.query(sql.lockUser, [userId])).rowCount === 0) return 'missing'
    const { rows } = await client.query(sql.countAccounts, [userId, accountId])
    const counted = rows[0] as { accounts: number; found: number } | undefined
    if (!counted || counted.found === 0) return 'missing'
    // Written so that a keptElsewhere that is not a number keeps the account.
    if (!(counted.accounts - 1 + keptElsewhere >= 1)) return 'last'
    await client.query(sql.deleteAccount, [userId, accountId])
    return 'unlinked'
  })
}

function isPool(value: unknown): value is PostgresPool {
  if (typeof value !== 'object' || value === null) return false
  const pool = value as Record<string, unknown>
  return ['query', 'connect', 'on', 'listenerCount'].every((method) => typeof pool[method] === 'function')
}
