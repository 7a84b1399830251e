import type { ResolvedConfig } from '../../infra/config'
import type { KeyPurpose, KeyRing } from '../../infra/crypto/keys'
import { ConfigurationError } from '../../infra/errors'
import type { Limiter, Revocations, ServerState } from '../../infra/store/types'
import type { AccountsRuntime } from '../accounts/runtime'
import { FACTOR_METHODS } from '../accounts/store'
import type { PasskeySecondStep } from '../passkey/second-step'
import type { ResolvedMfa } from './options'

/** What the feature's routes and hooks share, built once at auth(). */
export interface MfaRuntime extends ResolvedMfa {
  readonly accounts: AccountsRuntime
  /** `pending`: seals the pending sign-in; `secret`: seals TOTP secrets at rest; `recovery`: keys recovery codes' hashes. */
  readonly keys: { readonly pending: KeyRing; readonly secret: KeyRing; readonly recovery: KeyRing }
  /** Codes judged for one pending sign-in, on every instance (5: a copied cookie gets no more). */
  readonly pendingAttempts: Limiter
  /** Codes judged for one user, over every pending sign-in and instance (10 in 15 minutes). */
  readonly userAttempts: Limiter
  /** A pending sign-in is spent once: its id's one point. */
  readonly spent: Limiter
  /** A passkey as the second step: when `mfa.factors` lists the passkey() provider, else null. */
  readonly passkeyStep: PasskeySecondStep | null
  /** The users' revocation times (sign-out everywhere, a reset): a pending sign-in from before one is over. */
  readonly revocations: Revocations
  readonly config: ResolvedConfig
}

/** Wrong codes a pending sign-in takes before it ends. */
export const PENDING_TRIES = 5
/** Seconds a pending sign-in lives. */
export const PENDING_SECONDS = 300
const USER_TRIES = 10
const USER_WINDOW = 900

export function createMfaRuntime(
  config: ResolvedConfig,
  resolved: ResolvedMfa,
  accounts: AccountsRuntime | null,
  state: ServerState,
  keys: (purpose: KeyPurpose) => KeyRing,
  passkeyStep: PasskeySecondStep | null,
): MfaRuntime {
  if (accounts === null)
    throw new ConfigurationError(
      '`mfa` needs `accounts`: a second factor belongs to a user; add accounts: postgresAccounts(pool) (or redisAccounts(redis), memoryAccounts())',
    )
  const missing = FACTOR_METHODS.filter(
    (method) => typeof (accounts.store as unknown as Record<string, unknown>)[method] !== 'function',
  )
  if (missing.length > 0)
    throw new ConfigurationError(`\`accounts.store\` lacks ${missing.join(', ')}, which \`mfa\` needs to keep factors`)
  return Object.freeze({
    ...resolved,
    accounts,
    keys: Object.freeze({ pending: keys('mfa-pending'), secret: keys('mfa-secret'), recovery: keys('mfa-recovery') }),
    pendingAttempts: state.limiter('mfa-pending', PENDING_TRIES, PENDING_SECONDS),
    userAttempts: state.limiter('mfa-user', USER_TRIES, USER_WINDOW),
    spent: state.limiter('mfa-spent', 1, PENDING_SECONDS),
    // resolveMfa checked that `providers` lists the one named: the feature's step is that provider's.
    passkeyStep: resolved.passkey !== null && passkeyStep?.providerId === resolved.passkey ? passkeyStep : null,
    revocations: state.revocations,
    config,
  })
}
