import type { Translation } from '../pages/languages'
import type { LevelLogger, Logger } from '../logger'
import type { Provider } from './providers'
import type { RedisClient } from '../store/redis'
import type { ExpressSessionStore } from '../store/express-session-store'
import type { RedirectCallbackParams } from '../urls/callback-url'
import type { AuditSink } from './audit'

export type { RedirectCallbackParams }

/** The user as the session and the client see it. */
export interface SessionUser {
  name?: string | null
  email?: string | null
  image?: string | null
}

/** The client-safe session object returned by `GET /session` and `getSession(req)`. */
export interface Session {
  user?: SessionUser
  expires: string
  [field: string]: unknown
}

/** What the server keeps for one session (inside the sealed cookie, or in the store). */
export interface SessionRecord {
  /** `{provider}:{account id}`, `email:{address}`, or the id the app's signIn callback chose. */
  userId: string
  user: SessionUser
  /** Server-side data the app keeps: the signIn callback's `data`, then what `callbacks.update` keeps (provider tokens: in `tokens`). */
  data?: Record<string, unknown>
  /** Seconds since the epoch: when the user signed in. The session never outlives `maxLifetime` after it. */
  createdAt: number
  /** Seconds since the epoch: when this session was last issued or renewed. */
  issuedAt: number
  /** Seconds since the epoch: when re-issued for the same sign-in (`others=true`); revocations count from it. */
  reissuedAt?: number
  /** Seconds since the epoch: when it ends unless renewed. */
  expiresAt: number
  /** The id of the provider the user signed in with (`'github'`, `'email'`); absent in sessions sealed before it was recorded. */
  provider?: string
  /** Where its provider tokens are (lib/features/provider-tokens/): a Redis reference or them sealed; never shown to the app or client. */
  tokens?: string
  /** The provider's tokens could not be refreshed for good: the client session says `error: 'RefreshAccessTokenError'`. */
  tokenError?: true
  /**
   * Seconds since the epoch: when the user last proved who they are, when not at the sign-in: later
   * (a re-authentication for step-up), or earlier (an OpenID provider's `auth_time`, a sign-in it
   * let stand on an older one of its own). Absent: at the sign-in.
   */
  authTime?: number
  /** How the user proved it (RFC 8176 values: `pwd`, `otp`, `hwk`, `swk`, `user`, `mfa`, …); absent: not known. */
  amr?: string[]
  /**
   * Database sessions a re-authentication moved to a new token: the store's id of the session as
   * it signed in, which its handle (`listSessions`) is still made from. Absent: the current id.
   */
  handleSid?: string
  /** Cookie sessions: a random id of the sign-in, kept by re-issues, naming it outside (a token's `sid`). */
  signInId?: string
}

/**
 * The app's own view of a session (`getSessionRecord(req)`, `res.locals.sessionRecord`): the whole
 * server-side record, frozen. It is never sent to the client; send what you choose of it yourself.
 */
export interface SessionRecordView {
  /** The user's id, as `SessionRecord.userId`: the key for the app's own database. */
  readonly userId: string
  readonly user: Readonly<SessionUser>
  /** The server-side data kept with the session (the signIn callback's `data`), or null. Deeply frozen. */
  readonly data: Readonly<Record<string, unknown>> | null
  /** The id of the provider the user signed in with, or null for a session sealed before it was recorded. */
  readonly provider: string | null
  /** When the user signed in. */
  readonly signedInAt: Date
  /** When the session ends unless renewed. */
  readonly expires: Date
  /** Seconds since the epoch: when the user last proved who they are (the sign-in, a later re-authentication for step-up, or an OpenID provider's earlier `auth_time`). */
  readonly authTime: number
  /**
   * How they proved it, as RFC 8176 authentication method references: `pwd` (a password), `otp` (a
   * one-time code: TOTP, an e-mail link), `hwk`/`swk` (a passkey), `user` (user verification),
   * `mfa` (two factors). [] when not known (a session from before they were recorded).
   */
  readonly amr: readonly string[]
  /** The authentication assurance level (NIST SP 800-63B): 2 when two factors were proved (`amr` has `mfa`), else 1. */
  readonly aal: 1 | 2
  /** Seconds since the epoch (the package's convention for times, docs/options.md): `signedInAt`. */
  readonly createdAt: number
  /** Seconds since the epoch: when this session was last issued or renewed (`renewedAt` in `listSessions`). */
  readonly issuedAt: number
  /** Seconds since the epoch: `expires`. */
  readonly expiresAt: number
  /**
   * This session's handle, the one `listSessions(userId)` gives it (database sessions): the current
   * device in that list. Null for cookie sessions, which cannot be listed.
   */
  readonly handle: string | null
}

export interface SessionCallbackParams {
  /** The default client-safe object: `{ user: { name, email, image }, expires }`. */
  session: Session
  record: Readonly<SessionRecord>
  trigger: 'get' | 'update'
  /** With trigger 'update': the `data` the client sent to `POST /session`. */
  newData?: unknown
}

export interface Callbacks {
  /** Shapes the client-safe session object. Whatever it returns is what the client sees. */
  session?: (params: SessionCallbackParams) => Session | Promise<Session>
  /** Sees every redirect target last; its answer is validated like any other target. */
  redirect?: (params: RedirectCallbackParams) => string | Promise<string>
  /**
   * Decides what `POST /session` keeps: receives the record and the client's `data`, returns the
   * new server-side `data` (or undefined to keep it as it is). Client data is never kept otherwise.
   */
  update?: (params: {
    record: Readonly<SessionRecord>
    newData: unknown
  }) => Record<string, unknown> | undefined | Promise<Record<string, unknown> | undefined>
  /** Called at every sign-in, whatever the provider (OAuth, e-mail, passkey, password), when an e-mail link is asked for, and before a password sign-up's mail goes out. */
  signIn?: (params: SignInCallbackParams) => SignInResult | Promise<SignInResult>
}

export interface SignInCallbackParams {
  user: SessionUser & { id: string }
  account: {
    provider: string
    type: 'oauth' | 'email' | 'webauthn' | 'credentials'
    providerAccountId: string
    [field: string]: unknown
  }
  profile?: Record<string, unknown>
  /** E-mail sign-in: `verificationRequest` is true when the link is asked for, absent when it is used. */
  email?: { verificationRequest: boolean }
}

/** true: go on; false: AccessDenied; a string: redirect there; an object: go on with this id/data. */
export type SignInResult = boolean | string | { userId?: string; data?: Record<string, unknown> }

/** The core's keys of `events`; the features add theirs (lib/core/feature.ts `events`). */
export const EVENT_NAMES = ['signIn', 'signOut', 'session'] as const

/**
 * The app's events: the core's here, and each feature adds its own by declaration merging
 * (`declare module '…/infra/config/types'` in its types.ts).
 */
export interface Events {
  signIn?: (message: { record: Readonly<SessionRecord> }) => void | Promise<void>
  signOut?: (message: { record: Readonly<SessionRecord> | null }) => void | Promise<void>
  session?: (message: { session: Session; record: Readonly<SessionRecord> }) => void | Promise<void>
}

export interface Pages {
  signIn?: string
  signOut?: string
  error?: string
  verifyRequest?: string
}

export interface CookieOverride {
  name?: string
  options?: {
    domain?: string
    path?: string
    sameSite?: 'lax' | 'strict' | 'none'
    secure?: boolean
  }
}

export interface CookieOverrides {
  sessionToken?: CookieOverride
  csrfToken?: CookieOverride
  flow?: CookieOverride
  /** The passkey ceremony's challenge cookie (`passkey()`). */
  webauthnChallenge?: CookieOverride
  accountLink?: CookieOverride
  /** Passwords' known-device cookie (`password()`). */
  knownDevice?: CookieOverride
  /** The second factor's pending sign-in (`mfa`). */
  mfaPending?: CookieOverride
  /** Step-up: who must sign in again (`requireAuth({ maxAge, aal })`). */
  reauth?: CookieOverride
}

export interface SessionOptions {
  /**
   * 'cookie' (default): the whole session, sealed, in the cookie. 'database': a random token in the
   * cookie and the session in `store` (or in Redis, with `redis` set). See docs/session-stores.md.
   */
  strategy?: 'cookie' | 'database'
  /** With strategy 'database': any express-session compatible store. Default: `redisSessionStore(redis)`. */
  store?: ExpressSessionStore
  /**
   * Seconds another instance may take to see that a user's sessions were revoked (sign-out
   * everywhere, `revokeSessions`) when Redis cannot tell it at once: how long each process keeps a
   * user's revocation time for when its tracking connection cannot vouch for it (off: Redis before
   * 6, an ACL without CLIENT; or not fresh). With tracking on, a revocation is seen as soon as Redis
   * announces it. Default 10; 0 reads Redis on every session read (and tracks no revocation time).
   */
  revocationDelay?: number
  /** Seconds a session lasts without activity. Default 30 days. */
  maxAge?: number
  /** Seconds after which an active session is renewed. Default 24 hours. */
  updateAge?: number
  /** Seconds after sign-in when a session ends, however often it was renewed. Default 30 days (or maxAge, if longer). */
  maxLifetime?: number
}

export interface AuthOptions {
  /** The absolute service URL including the base path. Else SERVICE_AUTH_URL. */
  url?: string
  /** 32 characters or more; an array rotates secrets (the first seals, all open). Else SERVICE_AUTH_SECRET. */
  secret?: string | readonly string[]
  /** Made by `passportStrategy()`, `oauth2()`, `oidc()`, `email()` or `passkey()` (one at most). */
  providers?: readonly Provider[]
  session?: SessionOptions
  callbacks?: Callbacks
  events?: Events
  pages?: Pages
  cookies?: CookieOverrides
  /** Origins (besides the service's own) that callbackUrl may point to, and whose forms may POST here from another site. */
  trustedOrigins?: readonly string[]
  /**
   * Exact origins whose pages may call the session, CSRF, providers, sign-out and sign-in routes
   * with the browser's cookies (CORS), and be callbackUrl targets (docs/cors.md). Default: none.
   */
  cors?: CorsOptions
  /**
   * Origins the built-in pages' forms may also reach, redirects included (their CSP `form-action`):
   * where an identity provider hands the login on to another host (a broker such as Auth0 or
   * Keycloak with an upstream provider, a federated login). Default none.
   */
  formActionOrigins?: readonly string[]
  /** Without `url`: build URLs from the Host / X-Forwarded-* headers (only behind a trusted proxy). */
  trustHost?: boolean
  /** A function given every log entry, a pino logger (`pino()`: any logger with its four methods), or false for silence. Default: one line per warning or error on stderr. */
  logger?: Logger | LevelLogger | false
  /** Given one record per security event (docs/telemetry.md, "Audit stream"); never awaited by a request. */
  audit?: AuditSink
  /** 'v5' makes `GET /session` answer null instead of {} (the NextAuth v5 client's convention). */
  nextAuthClient?: 'v4' | 'v5'
  /** Largest accepted POST body in bytes. Default 65536. */
  bodyLimit?: number
  /** Milliseconds a POST body may take to arrive (then 408). Default 10000. */
  bodyTimeout?: number
  /** Milliseconds any request to a provider (discovery, keys, token, userinfo) may take. Default 10000. */
  providerTimeout?: number
  /**
   * An ioredis client (or Cluster client) that the app creates and owns. With it, e-mail tokens, rate
   * limits, revocations, (strategy 'database') sessions, passkeys (unless `passkey({ store })`) and
   * their challenges, provider tokens (`tokens: true`) and what OpenID Connect logout keeps live in
   * Redis, shared by every instance.
   */
  redis?: RedisClient
  /** Prepended to every Redis key the package writes. Default 'auth:'. */
  redisKeyPrefix?: string
  /** Milliseconds any Redis command (or `session.store` call) may take before the request gets a 503. Default 1000. */
  storeTimeout?: number
  /**
   * Sign-in requests (`POST /signin/*`, `GET`/`POST /callback/*`, a passkey's `GET /webauthn-options/*`)
   * each client IP (`req.ip`, as the app's `trust proxy` gives it) may make per window; beyond it, 429
   * with Retry-After. Counted in Redis when `redis` is set. Default 60 per 60 seconds.
   */
  requestRateLimit?: { limit?: number; windowSeconds?: number }
  /**
   * Translations of the built-in pages and the sign-in mail by language tag (`{ de }`, the German
   * that ships with the package, or your own), each merged over English.
   */
  languages?: Readonly<Record<string, Translation>>
  /** One language for every request ('en' or a key of `languages`). Default: by Accept-Language. */
  language?: string
  /** Allows `cookies.*.options.secure: false` on an https service. Never in production. */
  dangerouslyAllowInsecureCookies?: boolean
  /** The built-in pages' look, as NextAuth's `theme`: colour scheme, brand colour, logo, button text colour. */
  theme?: Theme
}

/** `cors`: each origin exactly as browsers send it (`'https://app.example.com'`); no `*`, `null` or path; `http:` only for loopback or an http service. */
export interface CorsOptions {
  origins: readonly string[]
}

/** NextAuth's `theme` option for the built-in pages (docs/options.md, "Pages and theme"). */
export interface Theme {
  /** 'auto' (default): the reader's `prefers-color-scheme`; 'light' or 'dark': always that one. */
  colorScheme?: 'auto' | 'light' | 'dark'
  /** A CSS colour (`'#346df1'`) for the pages' own buttons and the card's top edge. */
  brandColor?: string
  /** An image above the card: an https URL, or a path on this site (`'/logo.svg'`). */
  logo?: string
  /** A CSS colour for the text on the pages' own buttons (those `brandColor` colours). */
  buttonText?: string
}
