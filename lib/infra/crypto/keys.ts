import { hkdfSync } from 'node:crypto'

/**
 * Each use of the secret gets its own key, derived with HKDF-SHA256 and a distinct label, so that
 * a value sealed or signed for one purpose can never be accepted for another.
 */
export type KeyPurpose =
  | 'session'
  | 'session-handle'
  | 'csrf'
  | 'oauth-flow'
  | 'oauth-state'
  | 'email-token'
  | 'email-address'
  | 'email-typed'
  | 'logout-hint'
  | 'provider-tokens'
  | 'passkey-challenge'
  | 'account-link'
  | 'password-token'
  | 'password-account'
  | 'password-device'
  | 'password-link'
  | 'mfa-pending'
  | 'mfa-secret'
  | 'mfa-recovery'
  | 'reauth'
  | 'access-token-eddsa'
  | 'access-token-es256'
  | 'access-token-sid'
  | 'telemetry-user'

const SALT = 'express-auth-service'

export function deriveKey(secret: string, purpose: KeyPurpose, length = 32): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, SALT, `express-auth-service v1 ${purpose}`, length))
}

/** Secret rotation: the first secret seals and signs, every secret opens and verifies. */
export interface KeyRing {
  readonly current: Buffer
  readonly all: readonly Buffer[]
}

export function keyRing(secrets: readonly string[], purpose: KeyPurpose): KeyRing {
  const all = secrets.map((secret) => deriveKey(secret, purpose))
  const current = all[0]
  if (!current) throw new Error('keyRing needs at least one secret')
  return Object.freeze({ current, all: Object.freeze(all) })
}
