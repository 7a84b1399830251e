import type { ProviderInfo } from '../../infra/config/providers'

/** `totp()`: codes from an authenticator app (RFC 6238: SHA-1, 6 digits, 30-second steps). */
export interface TotpFactor {
  readonly kind: 'totp'
  /** The name the authenticator app shows above the code; default: the app's host name. */
  readonly issuer: string | null
}

/** `recoveryCodes()`: ten single-use codes, for the day the phone is lost. */
export interface RecoveryFactor {
  readonly kind: 'recovery'
  /** Codes in a set (10). */
  readonly count: number
}

/** A factor `mfa.factors` lists: `totp()`, `recoveryCodes()`, or the `passkey()` provider itself. */
export type FactorOption = TotpFactor | RecoveryFactor | (ProviderInfo & { readonly type: 'webauthn' })

/** What the `require` rule is asked: who signed in, and how. */
export interface MfaRequireInfo {
  readonly userId: string
  /** The provider of the first factor. */
  readonly provider: string
  /** The first factor's methods (RFC 8176). */
  readonly amr: readonly string[]
  /** The user's enabled factors (`totp`, `recovery`, `passkey`). */
  readonly factors: readonly string[]
}

/** `mfa` on auth(). */
export interface MfaOptions {
  /** The factors users may enrol: `[totp(), recoveryCodes()]`, and `passkey()`'s provider. */
  readonly factors: readonly FactorOption[]
  /**
   * After which first factors a second is asked: `'enrolled'` (default: every sign-in of a user who
   * enrolled a factor), `'always'` (a user without one is sent to enrol before a session is made),
   * or a function of MfaRequireInfo (true: ask). It runs after every first factor: OAuth, OIDC,
   * Passport, e-mail, password. A function that throws or answers anything but a boolean asks.
   */
  readonly require?: 'enrolled' | 'always' | ((info: MfaRequireInfo) => boolean | Promise<boolean>)
}

/** A factor as the app lists it for its user (`listFactors`): never a secret or a code. */
export interface FactorInfo {
  readonly id: string
  readonly type: 'totp' | 'recovery'
  readonly label: string | null
  readonly createdAt: Date
  readonly lastUsedAt: Date | null
  /** Recovery codes: how many are left unused. */
  readonly codesLeft?: number
}

/** The helpers `mfa` adds to the router. */
export interface MfaHelpers {
  /** The user's enabled second factors. */
  listFactors(userId: string): Promise<FactorInfo[]>
  /** Removes one of the user's factors; false when they have none by that id. `factorRemoved` runs. */
  removeFactor(userId: string, factorId: string): Promise<boolean>
}

declare module '../../infra/config/types' {
  interface AuthOptions {
    /** A second factor after every first factor (docs/mfa.md): `{ factors: [totp(), recoveryCodes()], require }`. */
    mfa?: MfaOptions
  }
  interface Events {
    /** A second factor was enrolled (a TOTP app confirmed, recovery codes made). Tell the user. */
    factorAdded?: (message: { userId: string; factor: FactorInfo }) => void | Promise<void>
    /** A second factor was removed. Tell the user. */
    factorRemoved?: (message: { userId: string; factor: FactorInfo }) => void | Promise<void>
    /** A recovery code was spent (`codesLeft` remain). Tell the user: it may not have been them. */
    recoveryCodeUsed?: (message: { userId: string; codesLeft: number }) => void | Promise<void>
  }
}

declare module '../../infra/logger' {
  interface LogEvents {
    'mfa.pending': true
    'mfa.verified': true
    'mfa.failed': true
    'mfa.ended': true
    'mfa.enrolled': true
    'mfa.removed': true
    'mfa.recovery_used': true
  }
}

/** The events this feature adds (checked at auth() with the core's). */
export const MFA_EVENTS = ['factorAdded', 'factorRemoved', 'recoveryCodeUsed'] as const
