import type { ProviderInfo } from '../../infra/config/providers'
import type { BreachedOptions } from './breached'
import type { PasswordCheck } from './policy'
import type { ThrottleOptions } from './throttle'

/** Sign-in with an identifier and a password (`password()`), on NextAuth's credentials wire. */
export interface PasswordProvider extends ProviderInfo {
  readonly type: 'credentials'
  readonly protocol: 'password'
  /** What users sign in with: their address (normalised as `email()` does) or a user name. */
  readonly identifier: 'email' | 'username'
  /** Code points after NFKC normalisation. */
  readonly minLength: number
  readonly maxLength: number
  /** Names a password may not contain (the app's), each of 4 characters or more. */
  readonly appNames: readonly string[]
  /** The k-anonymity range check of breached passwords; null: off. */
  readonly breached: BreachedOptions | null
  /** Hashes at once (`concurrency`), waiting (`queue`), and how long one may wait (`wait`, ms). */
  readonly hashing: { readonly concurrency: number; readonly queue: number; readonly wait: number }
  readonly throttle: ThrottleOptions
  /** Seconds a reset link lives (3600). */
  readonly resetMaxAge: number
}

/** The helper `password()` adds to the router. */
export interface PasswordHelpers {
  /**
   * Checks a password against the policy (length, the common-password list, the identifier and the
   * app's name, the breached-password range API) for the app's own forms: `{ ok, reasons }`.
   */
  checkPassword(password: string, context?: { identifier?: string | null }): Promise<PasswordCheck>
}

declare module '../../infra/config/providers' {
  interface ProviderKinds {
    password: PasswordProvider
  }
}

declare module '../../infra/config/types' {
  interface Events {
    /** A signed-in user changed their password (`added`: they had none), and their other sessions ended. Tell the user. */
    passwordChanged?: (message: { userId: string; added: boolean }) => void | Promise<void>
    /** A password was set through a reset link, and every session of the user ended. Tell the user. */
    passwordReset?: (message: { userId: string }) => void | Promise<void>
  }
}

declare module '../../infra/logger' {
  interface LogEvents {
    'password.signin_failed': true
    'password.signed_in': true
    'password.busy': true
    'password.signup_sent': true
    'password.signup_exists': true
    'password.signup_refused': true
    'password.reset_sent': true
    'password.reset': true
    'password.changed': true
    'password.rehashed': true
    'password.link_refused': true
    'password.unlink_refused': true
    'password.breach_check_unavailable': true
  }
}

/** The events this feature adds (checked at auth() with the core's). */
export const PASSWORD_EVENTS = ['passwordChanged', 'passwordReset'] as const
