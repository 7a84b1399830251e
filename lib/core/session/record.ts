import type { SessionRecord, SessionRecordView, SessionUser } from '../../infra/config/types'
import { isRecord } from '../../infra/util/object'

/**
 * The record as JWT claims (`sub`, `iat`, `exp`, and OpenID's `auth_time` for the sign-in), so that
 * `jose.jwtDecrypt` reads our cookies too.
 */
export function toClaims(record: SessionRecord): Record<string, unknown> {
  const claims: Record<string, unknown> = {
    sub: record.userId,
    user: record.user,
    iat: record.issuedAt,
    exp: record.expiresAt,
    auth_time: record.createdAt,
  }
  if (record.data !== undefined) claims.data = record.data
  if (record.provider !== undefined) claims.provider = record.provider
  // The provider's tokens (lib/features/provider-tokens/): their reference in Redis, or them sealed under their own key.
  if (record.tokens !== undefined) claims.tok = record.tokens
  if (record.tokenError) claims.tok_err = true
  if (record.reissuedAt !== undefined) claims.reissued_at = record.reissuedAt
  if (record.amr !== undefined) claims.amr = record.amr
  if (record.authTime !== undefined) claims.reauth_time = record.authTime
  if (record.handleSid !== undefined) claims.hsid = record.handleSid
  if (record.signInId !== undefined) claims.siid = record.signInId
  return claims
}

/**
 * The time a session is checked against its user's revocation time: when it was re-issued for the
 * same sign-in (a revocation since then ends it), else the sign-in itself.
 */
export function revocableSince(record: SessionRecord): number {
  return record.reissuedAt ?? record.createdAt
}

/**
 * A record from untrusted claims, or null when any part is not what we write, or when it has
 * expired or outlived `maxLifetime` seconds since sign-in.
 */
export function fromClaims(
  claims: Record<string, unknown> | null,
  nowSeconds: number,
  maxLifetime: number,
): SessionRecord | null {
  if (!claims) return null
  const { sub, user, data, iat, exp, auth_time: createdAt, provider, tok, tok_err: tokenError, reissued_at } = claims
  const { amr, reauth_time: authTime, hsid, siid } = claims
  if (
    typeof sub !== 'string' ||
    sub === '' ||
    typeof iat !== 'number' ||
    typeof exp !== 'number' ||
    typeof createdAt !== 'number'
  )
    return null
  if (!(exp > nowSeconds) || !(createdAt + maxLifetime > nowSeconds)) return null
  const parsedUser = toUser(user)
  if (!parsedUser) return null
  if (data !== undefined && !isRecord(data)) return null
  if (provider !== undefined && (typeof provider !== 'string' || provider === '')) return null
  if (tok !== undefined && (typeof tok !== 'string' || tok === '')) return null
  if (tokenError !== undefined && tokenError !== true) return null
  if (reissued_at !== undefined && (typeof reissued_at !== 'number' || !(reissued_at >= createdAt))) return null
  if (amr !== undefined && !isAmr(amr)) return null
  if (authTime !== undefined && (typeof authTime !== 'number' || !(authTime > 0))) return null
  if (hsid !== undefined && (typeof hsid !== 'string' || hsid === '' || hsid.length > 128)) return null
  if (siid !== undefined && (typeof siid !== 'string' || siid === '' || siid.length > 64)) return null
  const record: SessionRecord = { userId: sub, user: parsedUser, createdAt, issuedAt: iat, expiresAt: exp }
  if (data !== undefined) record.data = data
  if (provider !== undefined) record.provider = provider
  if (tok !== undefined) record.tokens = tok
  if (tokenError === true) record.tokenError = true
  if (reissued_at !== undefined) record.reissuedAt = reissued_at
  if (amr !== undefined) record.amr = [...amr]
  if (authTime !== undefined) record.authTime = authTime
  if (hsid !== undefined) record.handleSid = hsid
  if (siid !== undefined) record.signInId = siid
  return record
}

/** An `amr` as we write one: a short list of short method names. */
export function isAmr(value: unknown): value is string[] {
  return (
    Array.isArray(value) &&
    value.length <= 16 &&
    value.every((method) => typeof method === 'string' && method !== '' && method.length <= 32)
  )
}

/** The authentication assurance level an `amr` proves: 2 with two factors (`mfa`), else 1. */
export function aalOf(amr: readonly string[] | undefined): 1 | 2 {
  return amr?.includes('mfa') ? 2 : 1
}

export function toUser(value: unknown): SessionUser | null {
  if (!isRecord(value)) return null
  const { name, email, image } = value
  const user: SessionUser = {}
  for (const [key, field] of [
    ['name', name],
    ['email', email],
    ['image', image],
  ] as const) {
    if (field === undefined || field === null) continue
    if (typeof field !== 'string') return null
    user[key] = field
  }
  return user
}

/**
 * Server-side `data` as it will be sealed: a plain JSON object, or null for anything that is not one
 * or does not survive JSON (a BigInt, a cycle, a `toJSON` that answers something else). Checked
 * before a session is written, so that no session is sealed that could not be opened again.
 */
export function toSessionData(value: unknown): Record<string, unknown> | null {
  if (!isRecord(value)) return null
  try {
    const copy: unknown = JSON.parse(JSON.stringify(value))
    return isRecord(copy) ? copy : null
  } catch {
    return null
  }
}

/** The frozen public view of a record: copies, so that the app cannot change the session it was given. */
export function toRecordView(record: SessionRecord, handle: string | null): SessionRecordView {
  const data = record.data === undefined ? null : toSessionData(record.data)
  return Object.freeze({
    userId: record.userId,
    user: Object.freeze({ ...record.user }),
    data: data === null ? null : deepFreeze(data),
    provider: record.provider ?? null,
    signedInAt: new Date(record.createdAt * 1000),
    expires: new Date(record.expiresAt * 1000),
    authTime: record.authTime ?? record.createdAt,
    amr: Object.freeze([...(record.amr ?? [])]),
    aal: aalOf(record.amr),
    createdAt: record.createdAt,
    issuedAt: record.issuedAt,
    expiresAt: record.expiresAt,
    handle,
  })
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const field of Object.values(value)) deepFreeze(field)
    Object.freeze(value)
  }
  return value
}
