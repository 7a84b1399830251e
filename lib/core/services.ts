import type { ResolvedConfig } from '../infra/config'
import type { BaseUrl } from '../infra/urls/base-url'
import type { Csrf } from '../infra/csrf'
import type { KeyRing } from '../infra/crypto/keys'
import type { Log, UserForLog } from '../infra/logger'
import type { Languages } from '../infra/pages/languages'
import type { EmailRuntime } from '../features/email/runtime'
import type { OAuthRegistry } from '../features/oauth/registry'
import type { PasskeyRuntime } from '../features/passkey/runtime'
import type { SessionManager } from './session/manager'
import type { LogoutIndex } from '../features/oidc-logout/logout-index'
import type { Limiter } from '../infra/store/types'
import type { FlowKeys } from './sign-in/flow'
import type { ProviderTokens } from '../features/provider-tokens'

/** Everything `auth()` builds once (lib/auth.ts) and the request handlers share. */
export interface Services {
  readonly config: ResolvedConfig
  readonly csrf: Csrf
  readonly sessions: SessionManager
  readonly log: Log
  /** How log entries name a user (an e-mail address only by its keyed hash). */
  readonly userForLog: UserForLog
  /** The `GET /providers` body, built once per service URL. */
  readonly providersJson: (base: BaseUrl) => string
  readonly oauth: OAuthRegistry
  /** The provider tokens of sessions (`tokens: true`), and getAccessToken. */
  readonly tokens: ProviderTokens
  /** E-mail sign-in, when an `email()` provider is configured. */
  readonly email: EmailRuntime | null
  /** Passkey sign-in, when a `passkey()` provider is configured. */
  readonly passkey: PasskeyRuntime | null
  readonly flowKeys: FlowKeys
  /** Counts `POST /_log` entries per client IP. */
  readonly clientLogLimiter: Limiter
  /** The pages' and the mail's texts, per request. */
  readonly languages: Languages
  /** Counts sign-in requests (`POST /signin/*`, `/callback/*`) per client IP. */
  readonly requestLimiter: Limiter
  /**
   * Ends one database session by the store's id of it, on every instance, as `revokeSession` does
   * (whether it was listed). Null for cookie sessions, which cannot be ended one by one.
   */
  readonly endSession: ((userId: string, sid: string) => Promise<boolean>) | null
  /** Back-channel logout: who each provider session signed in, and the logout tokens already used. */
  readonly logoutIndex: LogoutIndex
  /** Seals the logout cookie (the provider and the ID token, or its handle in Redis, for id_token_hint). */
  readonly logoutKeys: KeyRing
}
