import { ConfigurationError } from '../errors'
import { createLog, defaultLogger, isLevelLogger, levelLogger, type Log } from '../logger'
import { resolveProviders, type Provider } from './providers'
import { buildCookieSets, checkedCookies, type CookieSet } from './cookies'
import { parseBaseUrl, type BaseUrl } from '../urls/base-url'
import { EVENT_NAMES, type AuthOptions, type Callbacks, type Events, type Pages } from './types'
import { isRecord } from '../util/object'
import type { ExpressSessionStore } from '../store/express-session-store'
import { resolveRedis, resolveSession, type ResolvedRedis } from './stores'
import { resolveBodyLimit, resolveRequestRateLimit, type RequestRateLimit } from './limits'
import { resolveOrigins } from './origins'
import { resolveCors, type ResolvedCors } from './cors'
import { notRead } from './nextauth-variables'
import { parseHttpUrl } from '../urls/http-url'
import { resolveLanguages, type Languages } from '../pages/languages'
import { resolveTheme, type ResolvedTheme } from './theme'
import { resolveAudit, type AuditSink } from './audit'
import {
  checkFunctions,
  checkKeys,
  describe,
  optionalBoolean,
  optionalMilliseconds,
  optionalObject,
  pickKeys,
} from '../util/options'

export interface ResolvedConfig {
  /** Null only with `trustHost` and no `url`: the URL then comes from each request. */
  readonly base: BaseUrl | null
  readonly secrets: readonly string[]
  readonly providers: readonly Provider[]
  readonly session: {
    readonly strategy: 'cookie' | 'database'
    readonly maxAge: number
    readonly updateAge: number
    readonly maxLifetime: number
    /** Strategy 'database' with a store of the app's own; null: Redis's (or the cookie strategy). */
    readonly store: ExpressSessionStore | null
    /** Seconds a process caches a user's revocation time. */
    readonly revocationDelay: number
  }
  /** Null unless `redis` is set. */
  readonly redis: ResolvedRedis
  /** Milliseconds any Redis command or session store call may take (then 503). */
  readonly storeTimeout: number
  readonly callbacks: Readonly<Callbacks>
  readonly events: Readonly<Events>
  readonly pages: Readonly<Pages>
  readonly cookies: { readonly secure: CookieSet; readonly plain: CookieSet }
  /** `trustedOrigins`: callbackUrl targets, and the origin check's trusted senders on every route. */
  readonly trustedOrigins: ReadonlySet<string>
  /** `cors` (lib/infra/config/cors.ts): null when unset; the router answers other origins on the routes that say `cors`. */
  readonly cors: ResolvedCors | null
  /** What a callbackUrl may point to besides the service's origin: `trustedOrigins` and `cors.origins`. */
  readonly redirectOrigins: ReadonlySet<string>
  /** Origins the built-in pages' forms may reach besides those the service knows (CSP form-action). */
  readonly formActionOrigins: ReadonlySet<string>
  readonly emptySession: '{}' | 'null'
  readonly bodyLimit: number
  /** Milliseconds a POST body may take to arrive. */
  readonly bodyTimeout: number
  /** Milliseconds an outgoing request to a provider (discovery, keys, token, userinfo) may take. */
  readonly providerTimeout: number
  /** Requests of the routes whose policy says `rateLimit` (sign-ins, callbacks, passkey options) per client IP. */
  readonly requestRateLimit: RequestRateLimit
  /** The texts of the pages and the sign-in mail: English, the `languages` merged over it, and how a request picks one. */
  readonly languages: Languages
  /** `theme`: the built-in pages' colour scheme, colours and logo (lib/infra/config/theme.ts). */
  readonly theme: ResolvedTheme
  readonly log: Log
  /** `audit`: given one record per security event (lib/core/audit.ts); null when unset. */
  readonly audit: AuditSink | null
  /** The features' own options (lib/core/feature.ts `options`), as given: each feature checks its own. */
  readonly featureOptions: Readonly<Record<string, unknown>>
}

const OPTIONS = [
  'url',
  'secret',
  'providers',
  'session',
  'callbacks',
  'events',
  'pages',
  'cookies',
  'trustedOrigins',
  'formActionOrigins',
  'cors',
  'trustHost',
  'logger',
  // The audit stream's sink: lib/core/audit.ts.
  'audit',
  'nextAuthClient',
  'bodyLimit',
  'bodyTimeout',
  'providerTimeout',
  'redis',
  'redisKeyPrefix',
  'storeTimeout',
  'requestRateLimit',
  // Checked and merged over the English texts by lib/infra/pages/languages.ts.
  'languages',
  'language',
  // NextAuth's `theme` for the built-in pages: lib/infra/config/theme.ts.
  'theme',
  'dangerouslyAllowInsecureCookies',
] as const

export const SECRET_MIN_LENGTH = 32

/** What the features add to the options (lib/core/feature.ts): the providers they build, the events they emit. */
export interface OptionExtensions {
  /** The `protocol` of every provider a feature builds. */
  readonly protocols: readonly string[]
  /** The keys of `events` the features add to the core's. */
  readonly events: readonly string[]
  /** The top-level options the features add (`accounts`). */
  readonly options?: readonly string[]
}

/**
 * Validates the options, applies defaults and reads the environment: once, when `auth()` runs.
 * An explicit option always beats an environment setting. Each feature checks its own part of
 * them once this is done (lib/core/feature.ts `check`).
 */
export function resolveConfig(
  input: AuthOptions = {},
  env: NodeJS.ProcessEnv = process.env,
  extensions: OptionExtensions = { protocols: [], events: [] },
): ResolvedConfig {
  if (!isRecord(input)) throw new ConfigurationError(`auth() takes an options object; got ${describe(input)}`)
  const options = input
  const featureKeys = extensions.options ?? []
  checkKeys(options, [...OPTIONS, ...featureKeys], '')

  const log = createLog(resolveLogger(options.logger))
  const trustHost = optionalBoolean(options.trustHost, 'trustHost')
  const dangerous = optionalBoolean(options.dangerouslyAllowInsecureCookies, 'dangerouslyAllowInsecureCookies')
  const base = resolveBase(options.url, env, trustHost)
  if (dangerous)
    log(
      'warn',
      'config.warning',
      '`dangerouslyAllowInsecureCookies` is set: cookies may travel in clear text; never use it in production',
    )

  const cookies = checkedCookies(options.cookies)

  const providers = resolveProviders(options.providers, new Set(extensions.protocols))
  if (providers.length === 0)
    log(
      'warn',
      'config.warning',
      '`providers` is empty: the sign-in page has no way to sign in; add oidc(), oauth2(), passportStrategy() or email() to `providers`',
    )
  const redis = resolveRedis(options)
  const session = resolveSession(options.session, redis !== null)
  if (session.strategy === 'database' && session.store && !redis) {
    log(
      'warn',
      'config.warning',
      "each user's list of database sessions (for sign-out everywhere) is kept in this process's memory: with more than one instance, set `redis` as well",
    )
  }
  const warn = (message: string) => log('warn', 'config.warning', message)
  const trustedOrigins = resolveOrigins(options.trustedOrigins, 'trustedOrigins')
  const cors = resolveCors(options.cors, base, cookies, warn)
  return Object.freeze({
    base,
    secrets: resolveSecrets(options.secret, env),
    providers,
    session,
    redis,
    callbacks: resolveFunctions(options.callbacks, 'callbacks', ['session', 'redirect', 'update', 'signIn']),
    events: resolveFunctions(options.events, 'events', [...EVENT_NAMES, ...extensions.events]),
    pages: resolvePages(options.pages),
    cookies: buildCookieSets(cookies, dangerous, warn, base?.secure),
    trustedOrigins,
    cors,
    redirectOrigins: cors ? new Set([...trustedOrigins, ...cors.origins]) : trustedOrigins,
    formActionOrigins: resolveOrigins(options.formActionOrigins, 'formActionOrigins'),
    emptySession: resolveClient(options.nextAuthClient),
    bodyLimit: resolveBodyLimit(options.bodyLimit),
    bodyTimeout: optionalMilliseconds(options.bodyTimeout, 'bodyTimeout', 10_000),
    providerTimeout: optionalMilliseconds(options.providerTimeout, 'providerTimeout', 10_000),
    storeTimeout: optionalMilliseconds(options.storeTimeout, 'storeTimeout', 1000),
    requestRateLimit: resolveRequestRateLimit(options.requestRateLimit),
    languages: resolveLanguages(options.languages, options.language),
    theme: resolveTheme(options.theme),
    log,
    audit: resolveAudit(options.audit),
    featureOptions: pickKeys(options, featureKeys),
  })
}

function resolveBase(url: unknown, env: NodeJS.ProcessEnv, trustHost: boolean): BaseUrl | null {
  if (url !== undefined) {
    if (typeof url !== 'string')
      throw new ConfigurationError(
        `\`url\` must be a string such as 'https://example.com/api/auth'; got ${describe(url)}`,
      )
    return parseBaseUrl(url, 'url')
  }
  const fromEnv = env.SERVICE_AUTH_URL
  if (fromEnv) return parseBaseUrl(fromEnv, 'SERVICE_AUTH_URL')
  if (trustHost) return null
  throw new ConfigurationError(
    "`url` is required: pass `url: 'https://example.com/api/auth'` or set SERVICE_AUTH_URL (or, behind a proxy you trust, `trustHost: true`)" +
      notRead(env, ['NEXTAUTH_URL', 'AUTH_URL']),
  )
}

function resolveSecrets(value: unknown, env: NodeJS.ProcessEnv): readonly string[] {
  const option = value === undefined ? 'SERVICE_AUTH_SECRET' : 'secret'
  const raw = value ?? env.SERVICE_AUTH_SECRET
  const fix = `use 32 or more random characters, for example the output of \`openssl rand -base64 32\``
  if (raw === undefined || raw === '')
    throw new ConfigurationError(
      `\`secret\` is required: pass \`secret\` or set SERVICE_AUTH_SECRET; ${fix}${notRead(env, ['NEXTAUTH_SECRET', 'AUTH_SECRET'])}`,
    )
  const list = Array.isArray(raw) ? raw : [raw]
  if (list.length === 0) throw new ConfigurationError(`\`secret\` must not be an empty array; ${fix}`)
  list.forEach((secret, index) => {
    const name = Array.isArray(raw) ? `${option}[${index}]` : option
    if (typeof secret !== 'string')
      throw new ConfigurationError(`\`${name}\` must be a string; got ${describe(secret)}`)
    // The value itself is never echoed: it is a secret even when it is a bad one.
    if (secret.length < SECRET_MIN_LENGTH)
      throw new ConfigurationError(`\`${name}\` is ${secret.length} characters long; ${fix}`)
  })
  return Object.freeze([...(list as string[])])
}

function resolveFunctions<T>(value: unknown, option: string, known: readonly string[]): Readonly<T> {
  const object = optionalObject(value, option)
  checkFunctions(object, known, `${option}.`)
  return Object.freeze({ ...object }) as Readonly<T>
}

function resolvePages(value: unknown): Readonly<Pages> {
  const pages = optionalObject(value, 'pages')
  checkKeys(pages, ['signIn', 'signOut', 'error', 'verifyRequest'], 'pages.')
  for (const [key, page] of Object.entries(pages)) {
    if (typeof page !== 'string' || page.startsWith('//') || !(page.startsWith('/') || parseHttpUrl(page))) {
      throw new ConfigurationError(
        `\`pages.${key}\` must be a path such as '/login' or an absolute http(s) URL; got ${describe(page)}`,
      )
    }
  }
  return Object.freeze({ ...pages })
}

function resolveLogger(value: unknown) {
  if (value === undefined) return defaultLogger
  if (value === false || typeof value === 'function') return value as typeof defaultLogger | false
  // winston's methods take (message, meta), the other way round: its entries would come out garbled.
  if (isRecord(value) && 'transports' in value)
    throw new ConfigurationError(
      '`logger` got a winston logger, whose methods take (message, meta): write `logger: (e) => winston.log(e)`',
    )
  if (isLevelLogger(value)) return levelLogger(value)
  throw new ConfigurationError(
    `\`logger\` must be a function receiving each log entry, a logger with pino's methods (error, warn, info, debug), or false; got ${describe(value)}`,
  )
}

function resolveClient(value: unknown): '{}' | 'null' {
  if (value === undefined || value === 'v4') return '{}'
  if (value === 'v5') return 'null'
  throw new ConfigurationError(
    `\`nextAuthClient\` must be 'v4' (also right for the v3 client) or 'v5'; got ${describe(value)}`,
  )
}
