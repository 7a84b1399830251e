import type { Router } from 'express'
import { resolveConfig, type ResolvedConfig } from './infra/config'
import { warnWithoutErrorListener } from './infra/config/stores'
import type { AuthOptions, SessionRecord } from './infra/config/types'
import type { BaseUrl } from './infra/urls/base-url'
import { keyRing } from './infra/crypto/keys'
import { createCsrf } from './infra/csrf'
import { ConfigurationError } from './infra/errors'
import type { UserForLog } from './infra/logger'
import { createCsrfHelpers } from './core/csrf-helpers'
import { createHelpers, type CoreHelpers } from './core/helpers'
import type { Feature, FeatureEnv } from './core/feature'
import type { ProviderInfo } from './infra/config/providers'
import { createRouter } from './core/router'
import { createAudit, PACKAGE_VERSION } from './core/audit'
import { createTelemetry, type Telemetry } from './infra/telemetry'
import type { Services } from './core/services'
import { cookieStore } from './core/session/cookie-store'
import { databaseStore } from './core/session/database-store'
import { createDevices, handleOfToken, handlesOfSid, type DeviceHelpers } from './core/session/devices'
import { createSessionManager } from './core/session/manager'
import { REPLY_CACHE_LIMITS } from './core/session/reply-cache'
import { observeCaches, sessionChecks } from './core/session/telemetry'
import type { RecordStore } from './core/session/record-store'
import { guarded } from './infra/store/guarded'
import { storeHealth } from './infra/store/health'
import { memoryState } from './infra/store/memory'
import { redisRunner, type RedisRunner } from './infra/store/redis'
import { redisSessionStore } from './infra/store/connect-redis'
import { indexKey, redisState } from './infra/store/redis-state'
import { trackedRecords } from './infra/store/redis/records'
import { clusterTracking } from './infra/store/redis/cluster-tracking'
import { redisTracking, type TrackedReads } from './infra/store/redis/tracking'
import type { ServerState } from './infra/store/types'
import type { SessionLifecycle } from './core/session/lifecycle'
import { providerUrls } from './infra/urls/provider-urls'
import { FEATURES, type FeatureHelpers } from './features'

/** The core's helpers and `getAccessToken` (lib/features/provider-tokens/); the router carries the other features' too. */
export interface AuthHelpers extends CoreHelpers, Pick<FeatureHelpers, 'getAccessToken'> {}

export type AuthRouter = Router & AuthHelpers & DeviceHelpers & FeatureHelpers & StartupHelpers

export interface StartupHelpers {
  /**
   * Resolves when every OpenID Connect provider's discovery has answered (at once when there is
   * none); rejects with an Error naming the provider, its issuer and what went wrong: a wrong
   * issuer, or one that cannot be reached. Optional: without it, discovery waits for the first
   * sign-in, and its failure is logged (`provider.discovery_failed`).
   */
  ready(): Promise<void>
}

/** `POST /_log` entries a client IP may send per minute. */
const CLIENT_LOG_ENTRIES_PER_MINUTE = 30

/**
 * The Router factory: `app.use('/api/auth', auth(options))`. Everything that can be done once is
 * done here (options checked, keys derived, stores built, the features of lib/features.ts built in
 * their order), so that the router's closures only do per-request work.
 */
export function auth(options?: AuthOptions): AuthRouter {
  // Express calls a middleware with (req, res, next): that is `app.use(auth)` without the call.
  // `arguments`, not a rest parameter, so that the public signature stays `auth(options)`.
  // eslint-disable-next-line prefer-rest-params
  if (arguments.length === 3 && typeof arguments[2] === 'function') {
    throw new ConfigurationError(
      "`auth` was passed to app.use() without being called: write app.use('/api/auth', auth({ … })) instead of app.use(auth)",
    )
  }
  const config = resolveOptions(options)
  const telemetry = createTelemetry(config.secrets, PACKAGE_VERSION)
  const server = serverState(config, telemetry)
  const { state, redis, tracked } = server
  const handles = keyRing(config.secrets, 'session-handle')
  // The services and the store are made after the features (they list them, and run their session
  // hooks): a feature reaches them through this.
  const built: { svc?: Services; handleOf?: (token: string, record: SessionRecord | null) => string | null } = {}
  const providerIds: ReadonlySet<string> = new Set(config.providers.map((provider) => provider.id))
  const audit = createAudit({
    sink: config.audit,
    telemetry,
    providerIds,
    log: config.log,
    handleOf: (token, record) => built.handleOf!(token, record),
    handleOfSid: (sid, record) => handlesOfSid(handles, sid, record)[0]!,
  })
  const env: FeatureEnv = {
    config,
    log: config.log,
    state,
    redis,
    tracked,
    keys: (purpose) => keyRing(config.secrets, purpose),
    sessionHandle: (token, record) => built.handleOf!(token, record),
    handlesOfSid: (sid, record) => handlesOfSid(handles, sid, record),
    audit,
    telemetry,
    services: () => built.svc!,
  }
  const features = buildFeatures(env)
  // Every end of a session runs the features' session hooks (lib/core/session/lifecycle.ts).
  const records = recordStore(config, server, features, telemetry)
  built.handleOf = handleOfToken(records, handles)
  const svc: Services = Object.freeze({
    config,
    csrf: createCsrf(keyRing(config.secrets, 'csrf')),
    sessions: createSessionManager(records, config.session, state.revocations, {
      lifecycles: features,
      replies: REPLY_CACHE_LIMITS,
      // The app's code runs on every request: the record is reused, never the answer.
      perRequest: Boolean(config.callbacks.session || config.events.session),
      checks: sessionChecks(telemetry),
    }),
    log: config.log,
    userForLog: userForLogOf(features),
    providersJson: providersJsonFor(config.providers),
    clientLogLimiter: state.limiter('client-log', CLIENT_LOG_ENTRIES_PER_MINUTE, 60),
    languages: config.languages,
    requestLimiter: state.limiter('requests', config.requestRateLimit.limit, config.requestRateLimit.windowSeconds),
    endSession: endSessionOf(records),
    flowKeys: Object.freeze({
      seal: keyRing(config.secrets, 'oauth-flow'),
      state: keyRing(config.secrets, 'oauth-state'),
    }),
    reauthKey: keyRing(config.secrets, 'reauth'),
    features,
    audit,
    telemetry,
    providerIds,
  })
  built.svc = svc
  observeCaches(telemetry, svc.sessions.cache, server.tracking?.stats ?? null)
  const devices = createDevices(
    records,
    handles,
    state.revocations,
    config.session.maxLifetime,
    (userId, handle, record) =>
      audit.record({ event: 'session.revoked', userId, provider: record.provider ?? null, handle }),
  )
  const startup: StartupHelpers = {
    ready: () => Promise.all(features.flatMap((feature) => feature.ready?.() ?? [])).then(() => undefined),
  }
  const helpers = { ...createHelpers(svc, built.handleOf), ...createCsrfHelpers(svc), ...startup }
  const added = Object.assign({}, ...features.map((feature) => feature.helpers ?? {})) as FeatureHelpers
  return Object.assign(createRouter(svc, features), helpers, devices, added)
}

/** The options resolved with what the features add to them, and checked by each feature (internal: specs use it too). */
export function resolveOptions(options?: AuthOptions, env?: NodeJS.ProcessEnv): ResolvedConfig {
  const config = resolveConfig(options, env, {
    protocols: FEATURES.flatMap((feature) => feature.protocols ?? []),
    events: FEATURES.flatMap((feature) => feature.events ?? []),
    options: FEATURES.flatMap((feature) => feature.options ?? []),
  })
  for (const feature of FEATURES) feature.check?.(config)
  return config
}

/** The features of lib/features.ts, built in order, each with the features it requires. */
function buildFeatures(env: FeatureEnv): Feature[] {
  const built = new Map<string, Feature>()
  for (const definition of FEATURES) {
    const required = new Map<string, Feature>()
    for (const name of definition.requires ?? []) {
      const feature = built.get(name)
      if (!feature) throw new Error(`lib/features.ts: ${definition.name} requires ${name}, which must come before it`)
      required.set(name, feature)
    }
    built.set(definition.name, definition.build(env, required))
  }
  return [...built.values()]
}

/**
 * How log entries name a user: by user id, unless a feature names its own users otherwise (an
 * e-mail sign-in's address only by its keyed hash): logs never hold an address.
 */
function userForLogOf(features: readonly Feature[]): UserForLog {
  const namers = features.flatMap((feature) => (feature.userForLog ? [feature.userForLog] : []))
  return (userId) => {
    if (userId === undefined) return {}
    for (const namer of namers) {
      const named = namer(userId)
      if (named !== null) return named
    }
    return { userId }
  }
}

/** Database sessions one by one (back-channel logout by the provider's `sid`); null for cookie sessions. */
function endSessionOf(records: RecordStore): Services['endSession'] {
  const listing = records.listing
  return listing === undefined ? null : (userId, sid) => listing.end(userId, sid)
}

/** In Redis when `redis` is set (shared by every instance), else in this process's memory. */
function serverState(
  config: ResolvedConfig,
  telemetry: Telemetry,
): {
  state: ServerState
  redis: RedisRunner | null
  tracked: TrackedReads | null
  /** Redis tracking, whatever it tracks (database sessions, revocation times). */
  tracking: TrackedReads | null
} {
  if (!config.redis)
    return { state: memoryState(config.session.maxLifetime), redis: null, tracked: null, tracking: null }
  const { client, prefix } = config.redis
  warnWithoutErrorListener(client, config.log)
  const redis = redisRunner(client, prefix, config.storeTimeout, storeHealth(config.log, 'Redis'), telemetry)
  // Database sessions in Redis's own store are read on every request: kept in memory, current by
  // Redis, with their users' indexes and their provider tokens (lib/features/provider-tokens/). Users'
  // revocation times too (every session read checks one), unless revocationDelay is 0.
  const { strategy, store, revocationDelay } = config.session
  const ownStore = strategy === 'database' && store === null
  const prefixes = [
    ...(ownStore ? [redis.key('sess', ''), redis.key('idx', ''), redis.key('tok', '')] : []),
    ...(revocationDelay > 0 ? [redis.key('rev', '')] : []),
  ]
  const tracked =
    prefixes.length === 0 ? null : client.isCluster ? clusterTracking(redis, prefixes) : redisTracking(redis, prefixes)
  const state = redisState(redis, config.session, ownStore ? tracked : null, revocationDelay > 0 ? tracked : null)
  return { state, redis, tracked: ownStore ? tracked : null, tracking: tracked }
}

/**
 * Where the session layer keeps records (lib/core/session/record-store.ts), as `session.strategy`
 * says: sealed in the cookie, or a database store over an express-session store (Redis's own,
 * connect-redis, or the app's `session.store`).
 */
function recordStore(
  config: ResolvedConfig,
  { state, redis, tracked }: ReturnType<typeof serverState>,
  lifecycles: readonly SessionLifecycle[],
  telemetry: Telemetry,
): RecordStore {
  const { strategy, store, maxLifetime } = config.session
  if (strategy === 'cookie') return cookieStore(keyRing(config.secrets, 'session'))
  if (store === null && redis) {
    // Redis's own store: its calls get the same readiness check and deadline as every other command.
    const prefix = redis.key('sess', '')
    const own = redisSessionStore(redis.client, { prefix })
    return databaseStore({
      store: own,
      index: state.sessionIndex,
      indexed: true,
      call: (work) => redis.run(work),
      maxLifetime,
      cached: tracked && trackedRecords(tracked, prefix, (userId) => indexKey(redis, userId)),
      lifecycles,
    })
  }
  const health = storeHealth(config.log, 'The session store')
  return databaseStore({
    store: store!,
    index: state.sessionIndex,
    indexed: state.shared,
    // The app's store: each call a child span of the request's (lib/infra/telemetry).
    call: (work) => telemetry.span('auth.sessions.store', {}, () => guarded(work, config.storeTimeout, health)),
    maxLifetime,
    lifecycles,
  })
}

/** The `GET /providers` body, serialised once per service URL (one URL unless `trustHost`). */
function providersJsonFor(providers: readonly ProviderInfo[]): (base: BaseUrl) => string {
  const cache = new Map<string, string>()
  return (base) => {
    let json = cache.get(base.href)
    if (json === undefined) {
      json = JSON.stringify(
        Object.fromEntries(providers.map(({ id, name, type }) => [id, { id, name, type, ...providerUrls(base, id) }])),
      )
      if (cache.size < 100) cache.set(base.href, json)
    }
    return json
  }
}
