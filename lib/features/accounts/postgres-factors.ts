import { sqlError, type PostgresPool } from './postgres-connection'
import type { TableNames } from './postgres-schema'
import type { FactorMethods, FactorType, StoredFactor } from './store'

/**
 * The second factors of the PostgreSQL account store (./postgres-store.ts), in the factors table.
 * A step or a code is spent by one UPDATE whose WHERE holds the rule (a greater step, a code still
 * in the array): of concurrent calls, the ones that wait on the row lock see the first one's row
 * and match nothing, so exactly one answers true. The foreign key keeps a factor from outliving
 * its user (an add after deleteUser is `noUser`), and ON DELETE CASCADE deletes them with it.
 */
export function postgresFactors(pool: PostgresPool, names: TableNames): FactorMethods {
  const sql = factorStatements(names)
  const changed = async (text: string, values: unknown[]) => ((await pool.query(text, values)).rowCount ?? 0) > 0
  return Object.freeze({
    async addFactor(factor: StoredFactor, codeHashes: readonly string[] = []) {
      const { id, userId, type, label, secret, enabled, createdAt, lastUsedAt } = factor
      const codes = type === 'recovery' ? [...new Set(codeHashes)] : []
      try {
        await pool.query(sql.insert, [id, userId, type, label, secret, enabled, createdAt, lastUsedAt, codes])
        return 'added' as const
      } catch (error) {
        const { code, constraint } = sqlError(error)
        if (code === '23503' && constraint === names.constraints.factorUser) return 'noUser' as const
        throw error
      }
    },
    listFactors: async (userId: string) => (await pool.query(sql.list, [userId])).rows.map(toFactor),
    enableFactor: (userId: string, factorId: string) => changed(sql.enable, [userId, factorId]),
    removeFactor: (userId: string, factorId: string) => changed(sql.remove, [userId, factorId]),
    async spendTotpStep(userId: string, factorId: string, step: number) {
      // bigint holds any safe integer; anything else is no step at all, and no error.
      if (!Number.isSafeInteger(step)) return false
      return changed(sql.spendStep, [userId, factorId, step, new Date()])
    },
    spendRecoveryCode: (userId: string, factorId: string, codeHash: string) =>
      changed(sql.spendCode, [userId, factorId, codeHash, new Date()]),
    replaceRecoveryCodes: (userId: string, factorId: string, codeHashes: readonly string[]) =>
      changed(sql.replaceCodes, [userId, factorId, [...new Set(codeHashes)]]),
  })
}

const COLUMNS = 'id, user_id, type, label, secret, enabled, created_at, last_used_at'

/** Values travel as parameters; the only name in the text is the table's, from checked options. */
function factorStatements({ factors }: TableNames) {
  const own = 'WHERE user_id = $1 AND id = $2'
  return Object.freeze({
    insert: `INSERT INTO ${factors} (${COLUMNS}, codes) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::text[])`,
    list:
      `SELECT ${COLUMNS}, CASE WHEN type = 'recovery' THEN cardinality(codes) ELSE 0 END AS codes_left ` +
      `FROM ${factors} WHERE user_id = $1 ORDER BY created_at, id`,
    enable: `UPDATE ${factors} SET enabled = true ${own}`,
    remove: `DELETE FROM ${factors} ${own}`,
    spendStep:
      `UPDATE ${factors} SET last_step = $3::bigint, last_used_at = $4 ${own} ` +
      `AND type = 'totp' AND (last_step IS NULL OR last_step < $3::bigint)`,
    spendCode:
      `UPDATE ${factors} SET codes = array_remove(codes, $3::text), last_used_at = $4 ${own} ` +
      `AND type = 'recovery' AND $3::text = ANY (codes)`,
    replaceCodes: `UPDATE ${factors} SET codes = $3::text[] ${own} AND type = 'recovery'`,
  })
}

function toFactor(row: unknown): StoredFactor {
  const r = row as Record<string, unknown>
  const lastUsedAt = r.last_used_at
  return {
    id: String(r.id),
    userId: String(r.user_id),
    type: String(r.type) as FactorType,
    label: typeof r.label === 'string' ? r.label : null,
    secret: String(r.secret),
    enabled: r.enabled === true,
    createdAt: dateOf(r.created_at),
    lastUsedAt: lastUsedAt === null || lastUsedAt === undefined ? null : dateOf(lastUsedAt),
    codesLeft: Number(r.codes_left),
  }
}

/** A Date as pg parses timestamptz, or from the text an app's own type parser may leave. */
const dateOf = (value: unknown) => (value instanceof Date ? value : new Date(String(value)))
