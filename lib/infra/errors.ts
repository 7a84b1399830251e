/**
 * Every error the package raises is an AuthError with a stable code and an HTTP status.
 * The first group are the `error` query values of the wire contract (the NextAuth client and the
 * built-in pages know them); the second group are plain HTTP answers to malformed requests.
 * Every code is documented in docs/errors.md.
 */
export type AuthErrorCode =
  | 'Configuration'
  | 'AccessDenied'
  | 'Verification'
  | SigninPageCode
  | 'MissingCSRF'
  | 'Default'
  /** Accounts: the user's last way in cannot be unlinked (lib/features/accounts/). */
  | 'LastSignInMethod'
  | HttpErrorCode
  /** `getAccessToken`: the provider's tokens could not be refreshed for good (lib/features/provider-tokens/). */
  | 'RefreshAccessTokenError'

/** The codes the sign-in page explains itself (`GET /error` sends them there). */
export const SIGNIN_PAGE_CODES = [
  'Signin',
  'OAuthSignin',
  'OAuthCallback',
  'OAuthCreateAccount',
  'EmailCreateAccount',
  'Callback',
  'OAuthAccountNotLinked',
  'EmailSignin',
  'CredentialsSignin',
  'SessionRequired',
  // Ours (accounts): an identity linked to another user; a session too old to link or unlink with.
  'AccountAlreadyLinked',
  'ReauthRequired',
] as const

export type SigninPageCode = (typeof SIGNIN_PAGE_CODES)[number]

export type HttpErrorCode =
  | 'NotFound'
  | 'MethodNotAllowed'
  | 'PayloadTooLarge'
  | 'UnsupportedMediaType'
  | 'InvalidBody'
  | 'InvalidHost'
  | 'RequestTimeout'
  | 'TooManyRequests'
  | 'ServiceUnavailable'

const STATUS: ReadonlyMap<string, number> = new Map(
  Object.entries({
    Configuration: 500,
    AccessDenied: 403,
    Verification: 403,
    Signin: 400,
    OAuthSignin: 400,
    OAuthCallback: 400,
    OAuthCreateAccount: 400,
    EmailCreateAccount: 400,
    Callback: 400,
    OAuthAccountNotLinked: 400,
    EmailSignin: 400,
    CredentialsSignin: 401,
    SessionRequired: 401,
    AccountAlreadyLinked: 409,
    ReauthRequired: 401,
    LastSignInMethod: 409,
    MissingCSRF: 403,
    Default: 500,
    NotFound: 404,
    MethodNotAllowed: 405,
    PayloadTooLarge: 413,
    UnsupportedMediaType: 415,
    InvalidBody: 400,
    InvalidHost: 400,
    RequestTimeout: 408,
    TooManyRequests: 429,
    ServiceUnavailable: 503,
    RefreshAccessTokenError: 401,
  } satisfies Record<AuthErrorCode, number>),
)

export class AuthError extends Error {
  readonly code: AuthErrorCode
  readonly status: number

  constructor(code: AuthErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'AuthError'
    this.code = code
    // A Map, so that a code an app made up (say `constructor`) gets 500, not a prototype member.
    this.status = STATUS.get(code) ?? 500
  }
}

/** A mistake in the options given to `auth()` or in how the router is mounted. */
export class ConfigurationError extends AuthError {
  constructor(message: string) {
    super('Configuration', message)
    this.name = 'ConfigurationError'
  }
}

export function isAuthError(value: unknown): value is AuthError {
  return value instanceof AuthError
}

/** For `.catch()`: undefined when the store did not answer (`ServiceUnavailable`); anything else is thrown on. */
export function undefinedIfUnavailable(error: unknown): undefined {
  if (isAuthError(error) && error.code === 'ServiceUnavailable') return undefined
  throw error
}
