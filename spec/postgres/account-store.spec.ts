/**
 * The PostgreSQL account store holds the AccountStore contract, each test on tables of its own;
 * migrate() can run again and from many processes at once; the tables go where tablePrefix and
 * schema say; migrate() adds the password column to tables made before it, and takes no lock that
 * waits on the app's queries once it is there; unlinks keep the last way in whatever the server's
 * default isolation; values that look like SQL are kept as they are; and a connection the server
 * kills costs the one call that was on it, never the process.
 */
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Pool } from 'pg'
import { ConfigurationError } from '../../lib/infra/errors'
import { migrationSql, tableNames } from '../../lib/features/accounts/postgres-schema'
import { postgresAccounts, type PostgresAccountStore } from '../../lib/features/accounts/postgres-store'
import type { StoredAccount, User } from '../../lib/features/accounts/store'
import { describeAccountStoreContract } from '../../lib/testing/account-store'
import { postgresForFile } from '../support/postgres'

const db = postgresForFile('account-store')
let tables = 0
let shared: Pool | undefined
/**
 * A store on tables no other test uses: a prefix of its own in the file's schema, migrated. On one
 * pool for the file unless a test brings its own: a pool per test keeps its connections open after
 * the test, and the file's tests would take most of a server's default 100.
 */
async function freshStore(pool: Pool = (shared ??= db.pool())): Promise<PostgresAccountStore> {
  tables += 1
  const store = postgresAccounts(pool, { schema: db.schema, tablePrefix: `t${tables}_` })
  await store.migrate()
  return store
}

const id = () => randomBytes(8).toString('hex')
const user = (changes: Partial<User> = {}): User => ({
  id: id(),
  name: 'Ada',
  email: null,
  emailVerified: null,
  image: null,
  createdAt: new Date('2024-05-01T10:00:00.123Z'),
  ...changes,
})
const account = (userId: string, changes: Partial<StoredAccount> = {}): StoredAccount => ({
  id: id(),
  userId,
  provider: 'github',
  issuer: '',
  subject: id(),
  type: 'oauth',
  label: 'ada',
  linkedAt: new Date('2024-05-01T10:00:00.456Z'),
  lastUsedAt: null,
  passwordHash: null,
  ...changes,
})

describeAccountStoreContract('the PostgreSQL store', () => freshStore(), { describe, it, beforeEach })

describe('migrate()', () => {
  it('can run again, and from many stores at once, and the store works after it', async () => {
    const prefix = `m${id()}_`
    const stores = Array.from({ length: 6 }, () =>
      postgresAccounts(db.pool({ max: 1 }), { schema: db.schema, tablePrefix: prefix }),
    )
    await Promise.all(stores.map((store) => store.migrate()))
    await Promise.all(stores.map((store) => store.migrate()))
    const ada = user()
    const first = account(ada.id)
    expect(await stores[0]!.createUser(ada, first)).toEqual({ kind: 'created', user: ada, account: first })
    expect(await stores[5]!.listAccounts(ada.id)).toEqual([first])
  })

  it('adds password_hash to an accounts table made before passwords, keeping its rows', async () => {
    const store = await freshStore()
    const ada = user()
    const first = account(ada.id)
    await store.createUser(ada, first)
    const accounts = `"${db.schema}"."t${tables}_accounts"`
    // The table as the release before passwords made it: no such column.
    await db.admin.query(`ALTER TABLE ${accounts} DROP COLUMN password_hash`)
    await expect(store.listAccounts(ada.id)).rejects.toThrow(/password_hash/)
    await store.migrate()
    await store.migrate()
    expect(await store.listAccounts(ada.id)).toEqual([first])
    expect(await store.setPasswordHash(ada.id, first.id, '$scrypt$ln=17,r=8,p=1$c2FsdA$aGFzaA')).toBe(true)
    expect(await store.findAccount(first)).toEqual({ ...first, passwordHash: '$scrypt$ln=17,r=8,p=1$c2FsdA$aGFzaA' })
  })

  it('adds the factors table beside tables made before second factors, keeping their rows', async () => {
    const store = await freshStore()
    const ada = user()
    const first = account(ada.id)
    await store.createUser(ada, first)
    // The tables as the release before second factors made them: no factors table.
    await db.admin.query(`DROP TABLE "${db.schema}"."t${tables}_factors"`)
    await expect(store.listFactors(ada.id)).rejects.toThrow(/factors/)
    await store.migrate()
    expect(await store.listAccounts(ada.id)).toEqual([first])
    const factor = { id: id(), userId: ada.id, type: 'totp' as const, label: null, secret: 's', enabled: false }
    const stored = { ...factor, createdAt: new Date('2024-05-02T10:00:00.789Z'), lastUsedAt: null, codesLeft: 0 }
    expect(await store.addFactor(stored)).toBe('added')
    expect(await store.listFactors(ada.id)).toEqual([stored])
  })

  it('once the column is there, does not wait behind a transaction that reads the accounts', async () => {
    // ALTER TABLE takes the table's strongest lock even when it changes nothing: it would wait for
    // the reader, and every sign-in would queue behind it, at each start of each instance.
    const store = await freshStore()
    const reader = await db.admin.connect()
    try {
      await reader.query('BEGIN')
      await reader.query(`SELECT count(*) FROM "${db.schema}"."t${tables}_accounts"`)
      const migrated = store.migrate().then(() => 'migrated')
      const waited = new Promise((resolve) => setTimeout(() => resolve('waited'), 2_000))
      expect(await Promise.race([migrated, waited])).toBe('migrated')
      await reader.query('COMMIT')
      await migrated
    } finally {
      reader.release()
    }
  })

  it('runs the SQL docs/accounts-postgres.md shows, for teams that run their own migrations', () => {
    const doc = readFileSync(join(__dirname, '../../docs/accounts-postgres.md'), 'utf8')
    const shown = /```sql\n([\s\S]*?)```/.exec(doc)?.[1]
    expect(shown).toBe(`${migrationSql(tableNames(undefined)).join(';\n\n')};\n`)
  })
})

describe('tablePrefix and schema', () => {
  it('put the tables in that schema under that prefix, each pair apart from the other', async () => {
    // A pool whose search_path does not name the schema: the option alone takes the store there.
    const a = postgresAccounts(db.admin, { schema: db.schema, tablePrefix: 'one_' })
    const b = postgresAccounts(db.admin, { schema: db.schema, tablePrefix: 'two_' })
    await a.migrate()
    await b.migrate()
    const { rows } = await db.admin.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_name ~ '^(one|two)_' ORDER BY 1`,
      [db.schema],
    )
    expect(rows.map((row) => row.table_name)).toEqual([
      'one_accounts',
      'one_factors',
      'one_users',
      'two_accounts',
      'two_factors',
      'two_users',
    ])
    const ada = user()
    await a.createUser(ada, account(ada.id))
    expect(await a.getUser(ada.id)).toEqual(ada)
    expect(await b.getUser(ada.id)).toBeNull()
  })

  it("default to 'auth_' in the connection's search_path", async () => {
    const store = postgresAccounts(db.pool())
    await store.migrate()
    const { rows } = await db.admin.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_name LIKE 'auth%' ORDER BY 1`,
      [db.schema],
    )
    expect(rows.map((row) => row.table_name)).toEqual(['auth_accounts', 'auth_factors', 'auth_users'])
  })

  it.each([
    [{ tablePrefix: 'auth"; DROP TABLE x; --' }, /`tablePrefix` of postgresAccounts\(\) must be lower-case letters/],
    [{ tablePrefix: 'Auth_' }, /`tablePrefix`.*got "Auth_"/],
    [{ tablePrefix: 'x'.repeat(40) }, /`tablePrefix`.*at most 39 characters/],
    [{ schema: '' }, /`schema` of postgresAccounts\(\) must be .* such as 'auth'/],
    [{ schema: 'public.auth' }, /`schema`/],
    [{ tablePrefx: 'a_' }, /Unknown option `tablePrefx`. Did you mean `tablePrefix`\?/],
  ])('refuse %j at construction, naming the option and the fix', (options, message) => {
    const make = () => postgresAccounts(db.admin, options as never)
    expect(make).toThrow(ConfigurationError)
    expect(make).toThrow(message)
  })

  it('refuse what is not a pool', () => {
    expect(() => postgresAccounts({} as never)).toThrow(/takes a node-postgres Pool, such as new Pool/)
  })
})

describe('a server whose transactions are REPEATABLE READ by default', () => {
  it('still never lets two racing unlinks leave a user with no way in', async () => {
    // The second unlink must count after the first committed, which a snapshot taken before it
    // waited for the user's row would not see.
    const store = await freshStore(db.pool({ options: '-c default_transaction_isolation=repeatable\\ read' }))
    for (let round = 0; round < 5; round++) {
      const ada = user()
      const [first, second] = [account(ada.id), account(ada.id)]
      await store.createUser(ada, first)
      await store.linkAccount(second)
      const results = await Promise.all([
        store.unlinkAccount(ada.id, first.id, 0),
        store.unlinkAccount(ada.id, second.id, 0),
      ])
      expect(results.sort()).toEqual(['last', 'unlinked'])
      expect(await store.listAccounts(ada.id)).toHaveLength(1)
    }
  })
})

describe('values that look like SQL', () => {
  it('are kept and found as they are, and every table is still there', async () => {
    const store = await freshStore()
    const evil = `'); DROP TABLE "${db.schema}"."t${tables}_accounts"; --`
    const ada = user({ id: `${evil}u`, name: evil, email: `${evil}@example.com`, image: evil })
    const first = account(ada.id, { provider: evil, issuer: evil, subject: evil, label: evil })
    expect(await store.createUser(ada, first)).toEqual({ kind: 'created', user: ada, account: first })
    expect(await store.findAccount({ provider: evil, issuer: evil, subject: evil })).toEqual(first)
    expect(await store.getUser(ada.id)).toEqual(ada)
    expect(await store.listAccounts(ada.id)).toEqual([first])
    expect(await store.findAccount({ provider: evil, issuer: evil, subject: `${evil}' OR '1'='1` })).toBeNull()
    expect(await store.setPasswordHash(ada.id, first.id, evil)).toBe(true)
    expect(await store.listAccounts(ada.id)).toEqual([{ ...first, passwordHash: evil }])
    expect(await store.setPasswordHash(`${ada.id}' OR '1'='1`, first.id, 'x')).toBe(false)
  })
})

describe('a connection the server kills', () => {
  /** Terminates the backends of the pool whose connections carry `application`. */
  const terminate = (application: string) =>
    db.admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [application])

  it('fails the call that was on it, and the next call works', async () => {
    const application = `store-${id()}`
    // One connection: the next call cannot be handed an idle one the kill took whose 'error' the
    // pool has not heard yet (with two, it sometimes was, and failed).
    const store = await freshStore(db.pool({ application_name: application, max: 1 }))
    const ada = user()
    const [first, second] = [account(ada.id), account(ada.id)]
    await store.createUser(ada, first)
    await store.linkAccount(second)
    // Hold the user's row, so that the unlink waits in its transaction, on its connection.
    const holder = await db.admin.connect()
    try {
      await holder.query('BEGIN')
      await holder.query(`SELECT 1 FROM "${db.schema}"."t${tables}_users" WHERE id = $1 FOR UPDATE`, [ada.id])
      const unlinking = store.unlinkAccount(ada.id, first.id, 0)
      await until(async () => (await waitingOnLock(application)) > 0)
      await terminate(application)
      await expect(unlinking).rejects.toThrow(/terminat/)
      await holder.query('ROLLBACK')
    } finally {
      holder.release()
    }
    expect(await store.unlinkAccount(ada.id, first.id, 0)).toBe('unlinked')
    expect(await store.listAccounts(ada.id)).toEqual([second])
  })

  it('while idle in the pool, does not end the process, and the pool makes a new one', async () => {
    const application = `store-${id()}`
    const pool = db.pool({ application_name: application, max: 3 })
    const store = await freshStore(pool)
    const ada = user()
    await Promise.all([store.createUser(ada, account(ada.id)), store.getUser('x'), store.getUser('y')])
    expect(pool.idleCount).toBeGreaterThan(0)
    await terminate(application)
    // The pool drops each idle connection when it hears of its end (its 'error' event).
    await until(async () => pool.idleCount === 0)
    expect(await store.getUser(ada.id)).toEqual(ada)
  })

  async function waitingOnLock(application: string): Promise<number> {
    const { rows } = await db.admin.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'`,
      [application],
    )
    return rows[0]!.n
  }
})

async function until(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out')
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
