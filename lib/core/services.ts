import type { ResolvedConfig } from '../infra/config'
import type { BaseUrl } from '../infra/urls/base-url'
import type { Csrf } from '../infra/csrf'
import type { Log, UserForLog } from '../infra/logger'
import type { Languages } from '../infra/pages/languages'
import type { SessionManager } from './session/manager'
import type { Limiter } from '../infra/store/types'
import type { FlowKeys } from './sign-in/flow'
import type { Feature } from './feature'
import type { KeyRing } from '../infra/crypto/keys'
import type { Audit } from './audit'
import type { Telemetry } from '../infra/telemetry'

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
  readonly flowKeys: FlowKeys
  /** Seals the step-up cookie: who must sign in again (./sign-in/reauth.ts). */
  readonly reauthKey: KeyRing
  /** The features (lib/features.ts), built: the core runs their hooks (./feature.ts). */
  readonly features: readonly Feature[]
  /** Counts `POST /_log` entries per client IP. */
  readonly clientLogLimiter: Limiter
  /** The pages' and the mail's texts, per request. */
  readonly languages: Languages
  /** Counts requests of the routes whose policy says `rateLimit` (sign-ins, callbacks, passkey options) per IP. */
  readonly requestLimiter: Limiter
  /**
   * Ends one database session by the store's id of it, on every instance, as `revokeSession` does
   * (whether it was listed). Null for cookie sessions, which cannot be ended one by one.
   */
  readonly endSession: ((userId: string, sid: string) => Promise<boolean>) | null
  /** The audit stream (`audit`): one record per security event, never awaited (./audit.ts). */
  readonly audit: Audit
  /** Traces and metrics through @opentelemetry/api, when the app has it (lib/infra/telemetry). */
  readonly telemetry: Telemetry
  /** The configured providers' ids: the only provider values telemetry carries. */
  readonly providerIds: ReadonlySet<string>
}
