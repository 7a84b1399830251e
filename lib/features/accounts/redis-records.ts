import { parseJsonObject } from '../../infra/util/json'
import type { AccountType, IdentityKey, StoredAccount, User } from './store'

/**
 * Users and accounts as JSON in Redis, times as milliseconds. A parser gives back what we wrote, or
 * null for anything else (a value someone else put under our prefix), never a half-read record.
 */

export function userJson({ id, name, email, emailVerified, image, createdAt }: User): string {
  return JSON.stringify({
    id,
    name,
    email,
    emailVerified: emailVerified?.getTime() ?? null,
    image,
    createdAt: createdAt.getTime(),
  })
}

export function accountJson(account: StoredAccount): string {
  const { id, userId, provider, issuer, subject, type, label, linkedAt, lastUsedAt, passwordHash } = account
  return JSON.stringify({
    id,
    userId,
    provider,
    issuer,
    subject,
    type,
    label,
    linkedAt: linkedAt.getTime(),
    lastUsedAt: lastUsedAt?.getTime() ?? null,
    passwordHash: passwordHash ?? null,
  })
}

export function parseUser(value: unknown): User | null {
  const parsed = typeof value === 'string' ? parseJsonObject(value) : null
  if (!parsed) return null
  const { id, name, email, emailVerified, image, createdAt } = parsed
  const createdAtDate = dateOf(createdAt)
  if (typeof id !== 'string' || !createdAtDate || ![name, email, image].every(isText) || !isTime(emailVerified))
    return null
  return {
    id,
    name: name as string | null,
    email: email as string | null,
    emailVerified: dateOf(emailVerified),
    image: image as string | null,
    createdAt: createdAtDate,
  }
}

const TYPES: ReadonlySet<unknown> = new Set<AccountType>(['oauth', 'email', 'webauthn', 'credentials'])

export function parseAccount(value: unknown): StoredAccount | null {
  const parsed = typeof value === 'string' ? parseJsonObject(value) : null
  if (!parsed) return null
  // No passwordHash: an account written before passwords, which has none.
  const { id, userId, provider, issuer, subject, type, label, linkedAt, lastUsedAt, passwordHash = null } = parsed
  const linkedAtDate = dateOf(linkedAt)
  const strings = [id, userId, provider, issuer, subject].every((field) => typeof field === 'string')
  if (!strings || !TYPES.has(type) || !isText(label) || !linkedAtDate || !isTime(lastUsedAt)) return null
  if (!isText(passwordHash)) return null
  return {
    id: id as string,
    userId: userId as string,
    provider: provider as string,
    issuer: issuer as string,
    subject: subject as string,
    type: type as AccountType,
    label,
    linkedAt: linkedAtDate,
    lastUsedAt: dateOf(lastUsedAt),
    passwordHash,
  }
}

/** Whether two identities are the same one: all three parts, exactly. */
export const sameIdentity = (a: IdentityKey, b: IdentityKey): boolean =>
  a.provider === b.provider && a.issuer === b.issuer && a.subject === b.subject

/** The user's verified address as it is compared (lower case), or null when none is verified. */
export const verifiedAddress = (user: User): string | null =>
  user.email !== null && user.emailVerified !== null ? user.email.toLowerCase() : null

const isText = (value: unknown): value is string | null => value === null || typeof value === 'string'
const isTime = (value: unknown) => value === null || (typeof value === 'number' && Number.isFinite(value))
const dateOf = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? new Date(value) : null)
