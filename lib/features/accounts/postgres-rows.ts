import type { TableNames } from './postgres-schema'
import type { AccountType, StoredAccount, User } from './store'

/**
 * The PostgreSQL account store's statements, and its rows to records and back. Values travel as
 * parameters ($1…); the only names in the text are the tables', from checked options.
 */

const USER_COLUMNS = 'id, name, email, email_verified, image, created_at'
const ACCOUNT_COLUMNS = 'id, user_id, provider, issuer, subject, type, label, linked_at, last_used_at, password_hash'

export type Statements = ReturnType<typeof statements>

export function statements({ users, accounts }: TableNames) {
  return Object.freeze({
    findAccount: `SELECT ${ACCOUNT_COLUMNS} FROM ${accounts} WHERE provider = $1 AND issuer = $2 AND subject = $3`,
    getUser: `SELECT ${USER_COLUMNS} FROM ${users} WHERE id = $1`,
    // lower(email) and the condition as the unique index has them, so that the index answers.
    findByEmail: `SELECT ${USER_COLUMNS} FROM ${users} WHERE lower(email) = lower($1) AND email_verified IS NOT NULL`,
    insertUser: `INSERT INTO ${users} (${USER_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6)`,
    insertAccount: `INSERT INTO ${accounts} (${ACCOUNT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    lockUser: `SELECT 1 FROM ${users} WHERE id = $1 FOR NO KEY UPDATE`,
    countAccounts: `SELECT count(*)::int AS accounts, count(*) FILTER (WHERE id = $2)::int AS found FROM ${accounts} WHERE user_id = $1`,
    deleteAccount: `DELETE FROM ${accounts} WHERE user_id = $1 AND id = $2`,
    listAccounts: `SELECT ${ACCOUNT_COLUMNS} FROM ${accounts} WHERE user_id = $1 ORDER BY linked_at, id`,
    touchAccount: `UPDATE ${accounts} SET last_used_at = $3 WHERE user_id = $1 AND id = $2`,
    setPasswordHash: `UPDATE ${accounts} SET password_hash = $3 WHERE user_id = $1 AND id = $2`,
    deleteUser: `DELETE FROM ${users} WHERE id = $1`,
  })
}

export const userValues = (user: User) => [
  user.id,
  user.name,
  user.email,
  user.emailVerified,
  user.image,
  user.createdAt,
]

export const accountValues = (account: StoredAccount) => [
  account.id,
  account.userId,
  account.provider,
  account.issuer,
  account.subject,
  account.type,
  account.label,
  account.linkedAt,
  account.lastUsedAt,
  account.passwordHash ?? null,
]

/** What was written, as a read would give it back: the interface's fields alone, Dates of our own. */
export const copyUser = (user: User): User => ({
  id: user.id,
  name: user.name,
  email: user.email,
  emailVerified: user.emailVerified && new Date(user.emailVerified),
  image: user.image,
  createdAt: new Date(user.createdAt),
})

export const copyAccount = (account: StoredAccount): StoredAccount => ({
  id: account.id,
  userId: account.userId,
  provider: account.provider,
  issuer: account.issuer,
  subject: account.subject,
  type: account.type,
  label: account.label,
  linkedAt: new Date(account.linkedAt),
  lastUsedAt: account.lastUsedAt && new Date(account.lastUsedAt),
  passwordHash: account.passwordHash ?? null,
})

type Row = Record<string, unknown>

const text = (value: unknown) => (typeof value === 'string' ? value : null)
/** A Date as pg parses timestamptz, or from the text an app's own type parser may leave. */
const date = (value: unknown) => (value instanceof Date ? value : new Date(String(value)))
const dateOrNull = (value: unknown) => (value === null || value === undefined ? null : date(value))

export function toUser(row: unknown): User {
  const r = row as Row
  return {
    id: String(r.id),
    name: text(r.name),
    email: text(r.email),
    emailVerified: dateOrNull(r.email_verified),
    image: text(r.image),
    createdAt: date(r.created_at),
  }
}

export function toAccount(row: unknown): StoredAccount {
  const r = row as Row
  return {
    id: String(r.id),
    userId: String(r.user_id),
    provider: String(r.provider),
    issuer: String(r.issuer),
    subject: String(r.subject),
    type: String(r.type) as AccountType,
    label: text(r.label),
    linkedAt: date(r.linked_at),
    lastUsedAt: dateOrNull(r.last_used_at),
    passwordHash: text(r.password_hash),
  }
}
