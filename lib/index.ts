/** The public surface of express-auth-service. No logic lives here. */
export { auth, type AuthHelpers, type AuthRouter } from './auth'
// AuthLocals types `res.locals.session` and `res.locals.sessionRecord`: `res: Response<unknown, AuthLocals>`.
export type { AuthLocals, RequireAuthOptions, SignedInLocals } from './core/helpers'
export type { DeviceHelpers, DeviceSession } from './core/session/devices'
export type { AuditRecord, AuditSink } from './infra/config/audit'
export type { AuditEvent } from './core/audit'
export {
  oauth2,
  oidc,
  passportStrategy,
  type OAuth2Options,
  type OidcOptions,
  type PassportStrategyOptions,
} from './features/oauth/factories'
export { email, type EmailOptions } from './features/email/factory'
export { passkey, type PasskeyOptions } from './features/passkey/factory'
export { password, type PasswordOptions } from './features/password/factory'
export type { PasswordHelpers } from './features/password/types'
export type { PasswordCheck, PasswordReason } from './features/password/policy'
export { totp, recoveryCodes } from './features/mfa/factors'
export type {
  FactorInfo,
  FactorOption,
  MfaHelpers,
  MfaOptions,
  MfaRequireInfo,
  RecoveryFactor,
  TotpFactor,
} from './features/mfa/types'
export type { AccessTokenKey, AccessTokensOptions } from './features/access-tokens/types'
export type { PasskeyHelpers, PasskeyInfo } from './features/passkey/manage'
export type { StartupHelpers } from './auth'
export type { PasskeyChanges, PasskeyStore, PasskeyUser, StoredPasskey } from './features/passkey/store'
export type { VerificationRecord, VerificationStore } from './features/email/store'
export { memoryAccounts } from './features/accounts/memory-store'
export { redisAccounts, type RedisAccountsOptions } from './features/accounts/redis-store'
export {
  postgresAccounts,
  type PostgresAccountStore,
  type PostgresAccountsOptions,
  type PostgresPool,
} from './features/accounts/postgres-store'
export type {
  AccountStore,
  AccountType,
  AddFactorResult,
  CreateUserResult,
  FactorMethods,
  FactorType,
  IdentityKey,
  LinkAccountResult,
  StoredAccount,
  StoredFactor,
  UnlinkAccountResult,
  User,
} from './features/accounts/store'
export type { AccountInfo, AccountsOptions } from './features/accounts/types'
export type { AccountHelpers } from './features/accounts/manage'
// redisSessionStore() returns an express-session store (connect-redis over ioredis), what `session.store` takes.
export { redisSessionStore, type RedisSessionStoreOptions } from './infra/store/connect-redis'
export type { RedisClient } from './infra/store/redis'
export type { ExpressSessionStore } from './infra/store/express-session-store'
// The options of the factories, and `Provider`, what they return (and `providers` takes); the
// fields of the resolved providers are the package's own.
export type { Provider, ProviderUser } from './infra/config/providers'
export type { MailTransport, VerificationRequest } from './features/email/types'
export type { OAuthCheck, OAuthTokens, ProfileMapper, StrategyClass } from './features/oauth/types'
export type {
  AuthOptions,
  Callbacks,
  CookieOverride,
  CookieOverrides,
  CorsOptions,
  Events,
  Pages,
  RedirectCallbackParams,
  Session,
  SessionCallbackParams,
  SessionOptions,
  SessionRecord,
  SessionRecordView,
  SessionUser,
  SignInCallbackParams,
  SignInResult,
  Theme,
} from './infra/config/types'
export type { TokenRefreshMessage } from './features/provider-tokens/types'
export type { BackchannelLogoutMessage } from './features/oidc-logout/types'
export type { AccessToken, GetAccessTokenOptions } from './features/provider-tokens/runtime'
export { AuthError, ConfigurationError, type AuthErrorCode } from './infra/errors'
export { de } from './infra/pages/de'
export type { Messages } from './infra/pages/messages'
export type { Translation } from './infra/pages/languages'
export type { LevelLogger, LogEntry, LogEvent, LogLevel, Logger } from './infra/logger'
