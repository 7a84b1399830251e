/** The public surface of express-auth-service. No logic lives here. */
export { auth, type AuthRouter } from './auth'
// AuthLocals types `res.locals.session` and `res.locals.sessionRecord`: `res: Response<unknown, AuthLocals>`.
export type { AuthHelpers, AuthLocals, RequireAuthOptions, SignedInLocals } from './helpers'
export type { DeviceHelpers, DeviceSession } from './session/devices'
export {
  oauth2,
  oidc,
  passportStrategy,
  type OAuth2Options,
  type OidcOptions,
  type PassportStrategyOptions,
} from './providers/oauth/factories'
export { email, type EmailOptions } from './providers/email/factory'
export { passkey, type PasskeyOptions } from './providers/passkey/factory'
export type { PasskeyHelpers, PasskeyInfo } from './providers/passkey/manage'
export type { StartupHelpers } from './auth'
export type { PasskeyChanges, PasskeyStore, PasskeyUser, StoredPasskey } from './store/passkeys'
export type { VerificationRecord, VerificationStore } from './store/verification'
export { redisSessionStore, type RedisSessionStoreOptions } from './store/connect-redis'
export type { RedisClient } from './store/redis'
export type { ExpressSessionStore } from './store/express-session-store'
// The options of the factories, and `Provider`, what they return (and `providers` takes); the
// fields of the resolved providers are the package's own.
export type {
  MailTransport,
  Provider,
  VerificationRequest,
  OAuthCheck,
  OAuthTokens,
  ProfileMapper,
  ProviderUser,
  StrategyClass,
} from './providers/types'
export type {
  AuthOptions,
  Callbacks,
  CookieOverride,
  CookieOverrides,
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
  TokenRefreshMessage,
} from './config/types'
export type { AccessToken, GetAccessTokenOptions } from './tokens'
export { AuthError, ConfigurationError, type AuthErrorCode } from './errors'
export { de } from './pages/de'
export type { Messages } from './pages/messages'
export type { Translation } from './pages/languages'
export type { LevelLogger, LogEntry, LogEvent, LogLevel, Logger } from './logger'
