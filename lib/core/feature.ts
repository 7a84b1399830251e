import type { ResolvedConfig } from '../infra/config'
import type { AuthErrorCode } from '../infra/errors'
import type { SessionRecord } from '../infra/config/types'
import type { KeyPurpose, KeyRing } from '../infra/crypto/keys'
import type { Log } from '../infra/logger'
import type { SigninData } from '../infra/pages/render'
import type { RedisRunner } from '../infra/store/redis'
import type { TrackedReads } from '../infra/store/redis/tracking'
import type { ServerState } from '../infra/store/types'
import type { Context, Handler } from './context'
import type { CsrfFailure } from './csrf-failure'
import type { Services } from './services'
import type { Audit } from './audit'
import type { SessionLifecycle } from './session/lifecycle'
import type { NewSession } from './session/manager'
import type { HeldSignIn, SignInInput } from './sign-in/complete'
import type { Telemetry } from '../infra/telemetry'

/**
 * The internal contract between the core and a feature (lib/features/<name>/): everything a feature
 * adds to the service, declared as data and hooks that the core runs. lib/features.ts lists the
 * features; lib/auth.ts builds each from that list, once, and the core never names one.
 */
export interface Feature extends SessionLifecycle {
  /** The folder's name (`passkey`), for messages. */
  readonly name: string
  /** Its routes, relative to the base path (`assets/passkey.js`, `webauthn-options/:provider`). */
  readonly routes?: Readonly<Record<string, Route>>
  /**
   * The providers it signs in with, and the routes every provider has: `POST /signin/:provider`
   * (start) and `/callback/:provider` (finish), each with its own policy.
   */
  readonly providers?: ProviderRoutes
  /** Runs for the sign-ins of its providers only (`for`); a feature with nothing to do there has none. */
  readonly signIn?: SignInHooks
  // sessionEnded, userSessionsEnded, sessionRenewed (./session/lifecycle.ts): what the feature keeps
  // beside a session (provider tokens in Redis) ends or moves with it; the core runs them for every
  // end and renewal it makes (an expiry runs nothing).
  /** After our sign-out: where the browser goes next instead of the callbackUrl (a provider's own sign-out), or null. */
  readonly afterSignOut?: (ctx: Context, record: SessionRecord | null, target: string) => Promise<string | null>
  /**
   * The origins a built-in page's forms may reach through this feature (a provider's authorization
   * endpoint, an end-session endpoint); null when one cannot be known (no `form-action` then).
   */
  readonly formActionOrigins?: (ctx: Context, page: BuiltInPage) => Promise<readonly string[] | null>
  /** Its part of the built-in sign-in page's data (the typed address, the passkey button). */
  readonly signInPage?: (ctx: Context, error: string | undefined) => SignInPageParts
  /** How a log entry names a user of its own (an e-mail sign-in's address only by its keyed hash), or null. */
  readonly userForLog?: (userId: string) => Record<string, string> | null
  /** The helpers it adds to the router `auth()` returns (typed in lib/features.ts `FeatureHelpers`). */
  readonly helpers?: object
  /** Resolves when it is ready to serve (OIDC discovery); rejects naming what is wrong. */
  readonly ready?: () => Promise<void>
  /**
   * Before any provider's `POST /signin/:provider` handler, once the route's policy passed (the
   * CSRF token included): true when it answered the request itself (accounts: a `link=true` from a
   * session too old to link is sent to sign in again), false to let the sign-in start.
   */
  readonly startSignIn?: (ctx: Context) => Promise<boolean>
  /**
   * The ways in it keeps for a user itself (passkeys), which accounts list, count and remove beside
   * the ones their store keeps.
   */
  readonly waysIn?: WaysIn
  /**
   * Before a signed-in user changes their ways in (accounts' `POST /unlink`): true when the change
   * may go on; false when the feature answered the request itself (password(): unlinking a password
   * asks for it, so that a copied session cookie cannot swap the password for one of its own).
   */
  readonly guardWayIn?: (ctx: Context, record: SessionRecord, change: WayInChange) => Promise<boolean>
  /**
   * The providers this user has a way in with (accounts: from their linked accounts and passkeys),
   * or null when the feature does not know: a step-up's sign-in page (`reauth=1`) offers only those.
   */
  readonly waysInOf?: (userId: string) => Promise<ReadonlySet<string> | null>
  /**
   * The assurance level (1 or 2) a session of this user must have proved to change how they sign
   * in (lib/core/assurance.ts): mfa answers 2 once the user enrolled a second factor.
   */
  readonly assurance?: (userId: string) => Promise<1 | 2>
  /** Erasure (accounts' `deleteUser`): forgets what it keeps of this user; the sessions are ended by the core. */
  readonly userDeleted?: (userId: string) => Promise<void>
}

/** A way in that a feature keeps itself (a passkey), as accounts list it. */
export interface WayIn {
  readonly id: string
  readonly provider: string
  readonly type: 'oauth' | 'email' | 'webauthn' | 'credentials'
  readonly label: string | null
  readonly linkedAt: Date
  readonly lastUsedAt: Date | null
}

/** A change of a user's ways in that a feature may guard. */
export interface WayInChange {
  readonly kind: 'unlink'
  readonly way: WayIn
}

export interface WaysIn {
  list(userId: string): Promise<WayIn[]>
  /**
   * Removes the user's way in `id`: what puts it back as it was (accounts undo a removal that
   * turns out to have left the user none), or null when the user has none by that id.
   */
  remove(userId: string, id: string): Promise<(() => Promise<void>) | null>
}

/** What a feature may add to the sign-in page: the address in the e-mail field, the passkey button. */
export type SignInPageParts = Partial<Pick<SigninData, 'email' | 'passkey' | 'credentials'>>

/** A built-in page with forms: the sign-in page, the sign-out page, or another (a feature's own). */
export type BuiltInPage = 'signin' | 'signout' | 'other'

/**
 * A route and its whole policy, which the router enforces (lib/core/router.ts): no route is special
 * anywhere else. Every POST checks the origin and the CSRF token from its body unless this says so.
 */
export interface Route {
  readonly GET?: Handler
  readonly POST?: Handler
  /**
   * The answer to a POST whose CSRF token is missing or wrong (default: 400 `{}`), or `'exempt'`
   * for a route whose request carries its own proof: each exemption says which where it is declared.
   */
  readonly csrf?: CsrfFailure | 'exempt'
  /**
   * Which requests from another site are refused (lib/infra/csrf/origin.ts): POSTs (the default),
   * `'all'` (a GET that changes state), or `'none'` (another site's server or page is the sender).
   */
  readonly crossSite?: 'post' | 'all' | 'none'
  /** The answer to a refused request from another site: default, the CSRF failure's (MissingCSRF when exempt). */
  readonly crossSiteAnswer?: CsrfFailure
  /**
   * The one method of this route that pages on `cors.origins` may call with the browser's cookies
   * (docs/cors.md): its answers carry the CORS headers for them, `OPTIONS` is their preflight, and
   * the origin check trusts them. Unset: no CORS header, whatever the option says.
   */
  readonly cors?: 'GET' | 'POST'
  /**
   * Counted against `requestRateLimit` per client IP: `'all'` requests, or `'flow'`: every POST and
   * a GET carrying a flow cookie (another site's `<img>` cannot use up a visitor's allowance).
   */
  readonly rateLimit?: 'all' | 'flow'
  /** A smaller body limit than `bodyLimit`; `'handler'`: the handler reads the body itself. */
  readonly bodyLimit?: number | 'handler'
}

export interface ProviderRoutes {
  /** The ids of its providers. */
  readonly ids: ReadonlySet<string>
  /** `POST /signin/:provider`. */
  readonly signIn?: Route
  /** `GET` and `POST /callback/:provider`. */
  readonly callback?: Route
}

/** A sign-in as the hooks see it: the user id is decided, the session not yet made. */
export interface SignInEvent {
  readonly ctx: Context
  /** The provider's id as the sign-in began: the app's signIn callback cannot change which it is. */
  readonly providerId: string
  readonly userId: string
  readonly input: SignInInput
}

/** What identifying a sign-in's user answers: the user, or an answer instead of a session. */
export type Identified =
  | { readonly kind: 'user'; readonly userId: string; readonly user?: NewSession['user'] }
  | { readonly kind: 'refused'; readonly error: AuthErrorCode }

/** A sign-in the app's signIn callback allowed: `chosen` is the user id the callback answered, if any. */
export interface IdentifyEvent {
  readonly ctx: Context
  readonly providerId: string
  readonly input: SignInInput
  readonly chosen: string | undefined
  /**
   * A step-up's sign-in: the user it must be (the signed-in one). An identity of nobody yet is
   * refused (`AccessDenied`), never made a user of; the core compares the answer with it.
   */
  readonly reauthOf?: string
}

export interface SignInHooks {
  /** The providers whose sign-ins it sees; the core never enters the hooks for another. */
  readonly for: ReadonlySet<string>
  /**
   * Before the app's signIn callback: a reason to refuse this sign-in (`OAuthCallback`, logged),
   * or null. Nothing is kept yet.
   */
  readonly admit?: (input: SignInInput) => string | null
  /**
   * Once the app's signIn callback allowed, before the input's `prepare`: which user this sign-in is
   * (accounts resolve the identity to one), or a refusal instead of a session. One feature at most
   * identifies; without one, the user id is the callback's, the input's, or `{provider}:{user.id}`.
   */
  readonly identify?: (event: IdentifyEvent) => Promise<Identified>
  /**
   * Once the user id is decided (and the input's `prepare` ran), before anything is kept for the
   * session: true when the feature answered the request instead and holds the sign-in (mfa: a
   * second factor is due), to finish it later with resumeSignIn (./sign-in/complete.ts). Runs for
   * a resumed sign-in no more.
   */
  readonly hold?: (event: SignInEvent, held: HeldSignIn) => Promise<boolean>
  /** Once the user id is decided, before the session is made; it may add to the new record. */
  readonly beforeSession?: (event: SignInEvent) => Promise<Pick<NewSession, 'tokens'> | void>
  /**
   * Once the store keeps the new session, before its cookie is set, with the store's id of it (null
   * for cookie sessions). If it fails, the session is removed again and the sign-in fails.
   */
  readonly sessionStored?: (event: SignInEvent, sid: string | null) => Promise<void>
}

/** What a feature is built from, once, at `auth()`. */
export interface FeatureEnv {
  readonly config: ResolvedConfig
  readonly log: Log
  /** This process's memory, or Redis (shared by every instance). */
  readonly state: ServerState
  readonly redis: RedisRunner | null
  /** Database sessions' reads kept current by Redis (null: none). */
  readonly tracked: TrackedReads | null
  /** A key ring derived from the secrets under one of the labels of lib/infra/crypto/keys.ts. */
  readonly keys: (purpose: KeyPurpose) => KeyRing
  /** The `listSessions` handle of the session a session token names, `record` what it opened to (null for cookie sessions). */
  readonly sessionHandle: (token: string, record: SessionRecord | null) => string | null
  /**
   * The handles of a database session from the store's id of it (a lifecycle hook's `sid`), one per
   * secret of the rotation list, the current first: what it was named before a rotation too.
   */
  readonly handlesOfSid: (sid: string, record: SessionRecord) => readonly string[]
  /** The audit stream, for the helpers that have no request (a handler has `ctx.audit`). */
  readonly audit: Audit
  /** Traces and metrics (lib/infra/telemetry): child spans of outgoing calls, the features' counters. */
  readonly telemetry: Telemetry
  /** The core's services, once built; a feature's handlers get them as `ctx.svc`. */
  readonly services: () => Services
}

/**
 * A feature as lib/features.ts lists it: its name, the features it requires (the architecture spec
 * allows those imports and no other), and how it is built from the environment and them.
 */
export interface FeatureDefinition<F extends Feature = Feature> {
  readonly name: string
  readonly requires?: readonly string[]
  /** The `protocol` of each provider its factories make: `providers` takes those. */
  readonly protocols?: readonly string[]
  /** The keys it adds to `events` (its types.ts declares their types). */
  readonly events?: readonly string[]
  /** The top-level options it adds to `auth()`'s (its types.ts declares them on AuthOptions); `config.featureOptions` holds them. */
  readonly options?: readonly string[]
  /** Checks its part of the options once they are resolved: a mistake throws a ConfigurationError naming the option and the fix. */
  readonly check?: (config: ResolvedConfig) => void
  readonly build: (env: FeatureEnv, required: ReadonlyMap<string, Feature>) => F
}
