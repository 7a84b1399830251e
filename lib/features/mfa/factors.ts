import { ConfigurationError } from '../../infra/errors'
import type { RecoveryFactor, TotpFactor } from './types'

/**
 * `totp()`: a second factor from an authenticator app (RFC 6238: SHA-1, 6 digits, 30-second
 * steps, one step either side). `issuer`: the name the app shows (default: the service's host).
 */
export function totp(options: { issuer?: string } = {}): TotpFactor {
  const { issuer, ...rest } = options
  const unknown = Object.keys(rest)
  if (unknown.length > 0) throw new ConfigurationError(`Unknown option \`totp.${unknown[0]}\`. Known options: issuer.`)
  if (
    issuer !== undefined &&
    (typeof issuer !== 'string' || issuer === '' || issuer.length > 64 || issuer.includes(':'))
  )
    throw new ConfigurationError('`totp({ issuer })` must be a name of 1 to 64 characters without a colon')
  return Object.freeze({ kind: 'totp', issuer: issuer ?? null })
}

/** `recoveryCodes()`: ten single-use codes of 60 bits each, kept hashed, for when the phone is lost. */
export function recoveryCodes(options: { count?: number } = {}): RecoveryFactor {
  const { count = 10, ...rest } = options
  const unknown = Object.keys(rest)
  if (unknown.length > 0)
    throw new ConfigurationError(`Unknown option \`recoveryCodes.${unknown[0]}\`. Known options: count.`)
  if (!Number.isInteger(count) || count < 5 || count > 20)
    throw new ConfigurationError('`recoveryCodes({ count })` must be a whole number from 5 to 20 (default 10)')
  return Object.freeze({ kind: 'recovery', count })
}
