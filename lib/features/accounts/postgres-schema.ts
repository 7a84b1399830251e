import { ConfigurationError } from '../../infra/errors'
import { checkKeys, describe } from '../../infra/util/options'
import { isRecord } from '../../infra/util/object'

/**
 * The tables of the PostgreSQL account store: their names, from the options, and the SQL that
 * creates them (`migrate()`, and docs/accounts-postgres.md for teams that run their own migrations).
 */

export interface PostgresAccountsOptions {
  /** Put before every table and index name; lower-case letters, digits and `_`. Default `'auth_'`. */
  readonly tablePrefix?: string
  /** The schema the tables are in (it must exist); default: the first of the connection's `search_path`. */
  readonly schema?: string
}

/** The names the store's SQL uses, quoted where they are identifiers. */
export interface TableNames {
  /** `"schema"."auth_users"`, or `"auth_users"` without a schema. */
  readonly users: string
  readonly accounts: string
  /** The second factors (`mfa()`). */
  readonly factors: string
  /** Constraint and index names as PostgreSQL reports them in an error (unquoted, no schema). */
  readonly constraints: {
    readonly userKey: string
    readonly verifiedEmail: string
    readonly accountKey: string
    readonly identity: string
    readonly accountUser: string
    /** An index, not a constraint: named here so that two prefixes in one schema never share it. */
    readonly accountsByUser: string
    readonly factorKey: string
    readonly factorUser: string
    readonly factorsByUser: string
  }
  /** What the migration's advisory lock is taken on: one per set of tables. */
  readonly lockName: string
}

/**
 * Lower-case only: the names are quoted in our SQL, and an upper-case letter in a quoted name is
 * a different table from the one a hand-written, unquoted migration creates.
 */
const IDENTIFIER = /^[a-z_][a-z0-9_]*$/
/** PostgreSQL cuts names at 63 bytes; the longest we derive is the prefix + `users_verified_email_key`. */
const MAX_PREFIX = 63 - 'users_verified_email_key'.length

export function tableNames(options: unknown): TableNames {
  if (options !== undefined && !isRecord(options))
    throw new ConfigurationError(
      `postgresAccounts(pool, options) takes an options object such as { tablePrefix: 'auth_' }; got ${describe(options)}`,
    )
  const given = options ?? {}
  checkKeys(given, ['tablePrefix', 'schema'], '')
  const prefix = identifier(given.tablePrefix ?? 'auth_', 'tablePrefix', MAX_PREFIX, true)
  const schema = given.schema === undefined ? undefined : identifier(given.schema, 'schema', 63, false)
  const qualify = (table: string) => (schema === undefined ? `"${table}"` : `"${schema}"."${table}"`)
  return Object.freeze({
    users: qualify(`${prefix}users`),
    accounts: qualify(`${prefix}accounts`),
    factors: qualify(`${prefix}factors`),
    constraints: Object.freeze({
      userKey: `${prefix}users_pkey`,
      verifiedEmail: `${prefix}users_verified_email_key`,
      accountKey: `${prefix}accounts_pkey`,
      identity: `${prefix}accounts_identity_key`,
      accountUser: `${prefix}accounts_user_id_fkey`,
      accountsByUser: `${prefix}accounts_user_id_idx`,
      factorKey: `${prefix}factors_pkey`,
      factorUser: `${prefix}factors_user_id_fkey`,
      factorsByUser: `${prefix}factors_user_id_idx`,
    }),
    lockName: `express-auth-service accounts ${qualify(`${prefix}users`)}`,
  })
}

function identifier(value: unknown, option: string, maxLength: number, mayBeEmpty: boolean): string {
  const ok =
    typeof value === 'string' && value.length <= maxLength && (IDENTIFIER.test(value) || (mayBeEmpty && value === ''))
  if (!ok)
    throw new ConfigurationError(
      `\`${option}\` of postgresAccounts() must be lower-case letters, digits and _, starting with a letter or _, ` +
        `at most ${maxLength} characters, such as ${option === 'schema' ? "'auth'" : "'auth_'"}; got ${describe(value)}`,
    )
  return value
}

/**
 * The statements `migrate()` runs, in order, in one transaction: each creates only what is missing.
 * The FOREIGN KEY's ON DELETE CASCADE is how deleting a user deletes their accounts; the partial
 * unique index is the rule that a verified address belongs to one user; `password_hash` holds a
 * password account's PHC string and is null on every other account. The factors table came after
 * the others, so it is created last: tables made before it are left as they are.
 */
export function migrationSql(names: TableNames): string[] {
  const c = names.constraints
  return [
    `CREATE TABLE IF NOT EXISTS ${names.users} (
  id text NOT NULL,
  name text,
  email text,
  email_verified timestamptz,
  image text,
  created_at timestamptz NOT NULL,
  CONSTRAINT "${c.userKey}" PRIMARY KEY (id)
)`,
    `CREATE UNIQUE INDEX IF NOT EXISTS "${c.verifiedEmail}" ON ${names.users} (lower(email)) WHERE email_verified IS NOT NULL`,
    `CREATE TABLE IF NOT EXISTS ${names.accounts} (
  id text NOT NULL,
  user_id text NOT NULL,
  provider text NOT NULL,
  issuer text NOT NULL,
  subject text NOT NULL,
  type text NOT NULL,
  label text,
  linked_at timestamptz NOT NULL,
  last_used_at timestamptz,
  password_hash text,
  CONSTRAINT "${c.accountKey}" PRIMARY KEY (id),
  CONSTRAINT "${c.identity}" UNIQUE (provider, issuer, subject),
  CONSTRAINT "${c.accountUser}" FOREIGN KEY (user_id) REFERENCES ${names.users} (id) ON DELETE CASCADE
)`,
    // A user's accounts in the order listAccounts gives them; ON DELETE CASCADE finds them by it too.
    `CREATE INDEX IF NOT EXISTS "${c.accountsByUser}" ON ${names.accounts} (user_id, linked_at)`,
    // The password column, on a table made before it. ALTER TABLE takes the table's strongest lock
    // even when the column is there, waiting behind every open read and making every sign-in wait
    // behind it, at each start of each instance: so only when it is missing. The name in the
    // literal is a checked, quoted identifier (no quote of its own), resolved as the ALTER's is.
    `DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = '${names.accounts}'::regclass AND attname = 'password_hash' AND NOT attisdropped) THEN
    ALTER TABLE ${names.accounts} ADD COLUMN IF NOT EXISTS password_hash text;
  END IF;
END $$`,
    // A user's second factors; `codes` holds a recovery factor's unused codes, hashed ('{}' on a
    // TOTP factor), and `last_step` the TOTP step it spent last, so that a code is spent once.
    `CREATE TABLE IF NOT EXISTS ${names.factors} (
  id text NOT NULL,
  user_id text NOT NULL,
  type text NOT NULL,
  label text,
  secret text NOT NULL,
  enabled boolean NOT NULL,
  created_at timestamptz NOT NULL,
  last_used_at timestamptz,
  last_step bigint,
  codes text[] NOT NULL DEFAULT '{}',
  CONSTRAINT "${c.factorKey}" PRIMARY KEY (id),
  CONSTRAINT "${c.factorUser}" FOREIGN KEY (user_id) REFERENCES ${names.users} (id) ON DELETE CASCADE
)`,
    `CREATE INDEX IF NOT EXISTS "${c.factorsByUser}" ON ${names.factors} (user_id, created_at)`,
  ]
}
