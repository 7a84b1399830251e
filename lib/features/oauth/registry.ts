import { NO_TELEMETRY, type Telemetry } from '../../infra/telemetry'
import { providerProbe, type ProviderProbe } from './observed'
import { Passport } from 'passport'
import type OAuth2Strategy from 'passport-oauth2'
import { errorText, type Log } from '../../infra/logger'
import { limitOAuthRequests } from './deadline'
import { UserinfoStrategy } from './userinfo-strategy'
import { discover, jwksCache, type OidcMetadata } from './oidc-discovery'
import { backoffMs, DISCOVERY_BACKOFF_MS, failureLog, type DiscoveryError } from './discovery-failure'
import { flowStateStore } from './passport/state-store'
import { authorizeUrlOf, hasOAuth2Client } from './passport/internals'
import type { Provider } from '../../infra/config/providers'
import type { OAuth2Provider, OAuthProvider, OidcProvider, StrategyProvider } from './types'
import { ConfigurationError } from '../../infra/errors'
import { parseHttpUrl } from '../../infra/urls/http-url'

/** A Passport instance of our own (the class's instances, not the global singleton's type). */
export type PassportInstance = InstanceType<typeof Passport>

/** The authorize() option under which extra authorization parameters reach a strategy. */
export const AUTHORIZATION_PARAMS = 'expressAuthServiceParams'

/** What a provider needs before a flow can start: for OIDC, discovery and the issuer's keys. */
export interface Ready {
  readonly oidc?: { readonly metadata: OidcMetadata; readonly jwks: ReturnType<typeof jwksCache> }
}

export interface OAuthRuntime {
  readonly provider: OAuthProvider
  /** Null when the provider cannot be set up now (an unreachable issuer); logged, and tried again next time. */
  ready(): Promise<Ready | null>
  /** `ready()`, rejected with the DiscoveryError when the provider cannot be set up (already logged). */
  discovered(): Promise<Ready>
  /**
   * The origin of the authorization endpoint, where the sign-in form's redirect goes (the pages' CSP
   * `form-action` must allow it). For OIDC, the discovered one once `ready()` succeeded, the issuer's
   * before; undefined when unknown (a strategy that keeps it elsewhere).
   */
  authorizationOrigin(): string | undefined
  /**
   * For a page that names the authorization origin: OIDC discovery awaited, unless it failed within
   * the last DISCOVERY_BACKOFF_MS (then at once, with the issuer's origin), so that page views
   * cannot make the service ask a failing issuer again and again (null then), and for back-channel
   * logout, which anyone can post to. Sign-in attempts use `ready()`.
   */
  awaitDiscovery(): Promise<Ready | null>
}

export { DiscoveryError, DISCOVERY_BACKOFF_MS } from './discovery-failure'

export interface OAuthRegistry {
  /** This auth() call's own Passport instance: never the global one. */
  readonly passport: PassportInstance
  get(id: string): OAuthRuntime | undefined
  /** Resolves when every provider's discovery answered; rejects with the first DiscoveryError. */
  ready(): Promise<void>
}

/** `timeoutMs`: the deadline of every request to a provider (discovery, keys, token, userinfo). */
export function createOAuthRegistry(
  providers: readonly Provider[],
  log: Log,
  timeoutMs: number,
  telemetry: Telemetry = NO_TELEMETRY,
): OAuthRegistry {
  const passport = new Passport()
  const runtimes = new Map<string, OAuthRuntime>()
  for (const provider of providers) {
    if (provider.type !== 'oauth') continue
    if (!provider.checks.includes('pkce')) {
      log(
        'warn',
        'config.warning',
        `provider ${provider.id} runs without PKCE (checks has no 'pkce'); keep it only for a provider that rejects PKCE`,
      )
    }
    runtimes.set(provider.id, setUp(passport, provider, log, timeoutMs, providerProbe(telemetry, provider.id)))
  }
  logoutNotice(providers, log)
  const ready = async () => {
    await Promise.all([...runtimes.values()].map((runtime) => runtime.discovered()))
  }
  return Object.freeze({ passport, get: (id: string) => runtimes.get(id), ready })
}

function setUp(
  passport: PassportInstance,
  provider: OAuthProvider,
  log: Log,
  timeoutMs: number,
  probe: ProviderProbe,
): OAuthRuntime {
  if (provider.protocol !== 'oidc') {
    const strategy = prepare(
      provider.protocol === 'strategy' ? construct(provider) : userinfoStrategy(provider, endpointsOf(provider)),
      timeoutMs,
      probe,
    )
    passport.use(provider.id, strategy)
    const ready: Ready = {}
    const origin = originOf(authorizeUrlOf(strategy))
    if (origin === undefined) {
      log(
        'warn',
        'config.warning',
        `provider ${provider.id}: its authorization URL is unknown, so the sign-in page's CSP cannot name it in form-action and leaves form-action out`,
      )
    }
    return {
      provider,
      ready: async () => ready,
      discovered: async () => ready,
      authorizationOrigin: () => origin,
      awaitDiscovery: async () => ready,
    }
  }
  // Discovery happens on the first sign-in (or sign-in page, or router.ready()), once; a failure is
  // retried on a later attempt.
  let pending: Promise<Ready> | null = null
  // Until discovery succeeds, the issuer's own origin: where nearly every provider authorizes.
  let origin = originOf(provider.issuer)
  let failedAt = -Infinity
  let failure: DiscoveryError | null = null
  const logFailure = failureLog(provider, log)
  const discovered = () => {
    // A failure stands for its back-off: sign-in attempts, which anyone can post, do not make the
    // service ask a failing issuer again and again.
    if (failure && Date.now() - failedAt < backoffMs(failure)) return Promise.reject(failure)
    pending ??= probe('discovery', () => discover(provider, timeoutMs)).then(
      (metadata) => {
        passport.use(provider.id, prepare(userinfoStrategy(provider, discoveredEndpoints(metadata)), timeoutMs, probe))
        origin = originOf(metadata.authorization_endpoint) ?? origin
        if (provider.logout === 'provider' && !provider.endSessionUrl && !metadata.end_session_endpoint)
          log(
            'warn',
            'config.warning',
            `provider ${provider.id}: \`logout: 'provider'\` but its discovery names no end_session_endpoint: sign-out ends this app's session only; set \`endSessionUrl\` if the provider has one`,
          )
        return { oidc: { metadata, jwks: jwksCache(metadata.jwks_uri, timeoutMs, probe) } }
      },
      (error: unknown) => {
        pending = null
        failedAt = Date.now()
        failure = logFailure(error)
        throw failure
      },
    )
    return pending
  }
  const ready = () => discovered().catch(() => null)
  const awaitDiscovery = async () => (Date.now() - failedAt < DISCOVERY_BACKOFF_MS ? null : ready())
  return { provider, ready, discovered, authorizationOrigin: () => origin, awaitDiscovery }
}

function originOf(url: unknown): string | undefined {
  if (typeof url !== 'string') return undefined
  const parsed = parseHttpUrl(url)
  return parsed ? parsed.origin : undefined
}

/** What every strategy the package builds is given: its state store, PKCE, its verify step (with the request). */
function managed(provider: OAuthProvider) {
  return { store: flowStateStore, pkce: provider.checks.includes('pkce') ? 'S256' : false, passReqToCallback: true }
}

interface Endpoints {
  readonly authorizationURL: string
  readonly tokenURL: string
  readonly userinfoURL: string | undefined
}

function endpointsOf(provider: OAuth2Provider): Endpoints {
  return { authorizationURL: provider.authorizationUrl, tokenURL: provider.tokenUrl, userinfoURL: provider.userinfoUrl }
}

function discoveredEndpoints(metadata: OidcMetadata): Endpoints {
  return {
    authorizationURL: metadata.authorization_endpoint,
    tokenURL: metadata.token_endpoint,
    userinfoURL: metadata.userinfo_endpoint,
  }
}

/** The strategy of an oauth2() or oidc() provider. */
function userinfoStrategy(provider: OAuth2Provider | OidcProvider, endpoints: Endpoints): OAuth2Strategy {
  return new UserinfoStrategy(
    {
      clientID: provider.clientId,
      clientSecret: provider.clientSecret,
      ...endpoints,
      scope: provider.scope,
      ...managed(provider),
    } as never,
    verify,
  )
}

/**
 * The app's strategy class, constructed with its options and ours. passportStrategy() let only a
 * class with passport-oauth2's methods through; its instances must also carry passport-oauth2's
 * client (`_oauth2`), through which every request to the provider gets its deadline.
 */
function construct(provider: StrategyProvider): OAuth2Strategy {
  const option = `providers[${JSON.stringify(provider.id)}]`
  let strategy: unknown
  try {
    strategy = new provider.strategy({ ...provider.options, ...managed(provider) } as never, verify as never)
  } catch (error) {
    throw new ConfigurationError(`\`${option}.options\` were refused by the strategy: ${errorText(error)}`)
  }
  if (!hasOAuth2Client(strategy))
    throw new ConfigurationError(
      `\`${option}.strategy\` is not built on passport-oauth2 (its instances have no passport-oauth2 client, \`_oauth2\`): the package signs in with OAuth 2 and OpenID Connect strategies built on passport-oauth2, and with e-mail links`,
    )
  return strategy as OAuth2Strategy
}

/** A strategy as the package runs it: the extra authorization parameters, and a deadline on its requests. */
function prepare(strategy: OAuth2Strategy, timeoutMs: number, probe: ProviderProbe): OAuth2Strategy {
  // authorizationParams() is passport-oauth2's documented hook for extra parameters; ours adds the
  // nonce and the app's extra parameters on top of the strategy's own.
  const own = strategy.authorizationParams.bind(strategy)
  strategy.authorizationParams = (options: Record<string, unknown>) => ({
    ...own(options),
    ...(options[AUTHORIZATION_PARAMS] as object | undefined),
  })
  limitOAuthRequests(strategy, timeoutMs, probe)
  return strategy
}

/** Passport's verify step keeps everything for the route to decide on: tokens and profile. */
function verify(
  _req: unknown,
  accessToken: string,
  refreshToken: string,
  params: unknown,
  profile: unknown,
  done: (error: null, user: object) => void,
): void {
  done(null, { accessToken, refreshToken, params, profile })
}

/**
 * When some provider signs out at the provider too (`logout: 'provider'`), which ones cannot: their
 * users stay signed in there after signing out here (docs/logout.md).
 */
function logoutNotice(providers: readonly Provider[], log: Log): void {
  const oauth = providers.filter((provider): provider is OAuthProvider => provider.type === 'oauth')
  if (!oauth.some((provider) => provider.protocol === 'oidc' && provider.logout === 'provider')) return
  const local = oauth.filter((provider) => provider.protocol !== 'oidc' || provider.logout !== 'provider')
  if (local.length === 0) return
  log(
    'info',
    'config.warning',
    `sign-out ends the provider's session too for \`logout: 'provider'\` providers only; for ${local.map((provider) => provider.id).join(', ')} it ends this app's session, and the provider's stays`,
  )
}
