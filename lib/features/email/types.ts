import type { ProviderInfo } from '../../infra/config/providers'
import type { VerificationStore } from './store'

/** What `sendVerificationRequest` is given: where to send, the link, the service's host, the link's end. */
export interface VerificationRequest {
  /** The normalised address. */
  readonly identifier: string
  readonly url: string
  readonly host: string
  readonly expires: Date
  /**
   * Which mail: `signIn` (absent: the same), or a password's: `passwordSignUp` (confirm the address
   * to create the account), `passwordSignUpExists` (someone tried to sign up with an address that
   * has an account; `url` is the sign-in page), `passwordReset` (set a new password).
   */
  readonly kind?: 'signIn' | 'passwordSignUp' | 'passwordSignUpExists' | 'passwordReset'
}

/** The part of a nodemailer transport the package uses. */
export interface MailTransport {
  sendMail(message: { from: string; to: string; subject: string; text: string; html: string }): Promise<unknown>
}

/** Sign-in with a link sent by e-mail (`email()`). */
export interface EmailProvider extends ProviderInfo {
  readonly type: 'email'
  readonly protocol: 'email'
  readonly from: string
  /** Absent only when `sendVerificationRequest` sends the mail itself. */
  readonly transport: MailTransport | undefined
  /** Seconds a link lives. */
  readonly maxAge: number
  /** GET on the link shows a page whose button spends it (mail scanners open every link). */
  readonly confirm: boolean
  /** Milliseconds sending may take. */
  readonly sendTimeout: number
  readonly rateLimits: {
    readonly addressPerMinute: number
    readonly addressPerHour: number
    readonly ipPerHour: number
  }
  readonly sendVerificationRequest: ((request: VerificationRequest) => void | Promise<void>) | undefined
  readonly normalizeIdentifier: ((address: string) => string) | undefined
  /** Where links wait to be used; the in-memory default when absent. */
  readonly store: VerificationStore | undefined
}

declare module '../../infra/config/providers' {
  interface ProviderKinds {
    email: EmailProvider
  }
}

declare module '../../infra/logger' {
  interface LogEvents {
    'email.sent': true
    'email.refused': true
    'email.rate_limited': true
    'email.send_failed': true
    'email.verification_failed': true
  }
}
