import { ConfigurationError } from '../../infra/errors'
import { checkKeys, describe, optionalString, requiredString } from '../../infra/util/options'
import type { OAuth2Provider, OAuthCheck, OidcProvider, StrategyProvider, ProfileMapper, StrategyClass } from './types'
import { parseHttpUrl } from '../../infra/urls/http-url'
import { isRecord } from '../../infra/util/object'
import { OAUTH2_HINTS, OIDC_HINTS, STRATEGY_HINTS } from './factory-hints'

/**
 * The provider factories an app puts in `providers`. Each checks its own options when it is
 * called (at start-up), with the kit of `auth()`: an unknown key is named with the option meant,
 * a known one of the wrong type with its fix.
 */

/** The options every OAuth provider factory takes. */
interface CommonOptions {
  /** URL-safe: the paths `/signin/{id}` and `/callback/{id}`. */
  id: string
  /** Shown on the sign-in page. Default: the id. */
  name?: string
  /** Default `['state', 'pkce']` (plus `'nonce'` for oidc()); `'state'` cannot be left out. */
  checks?: readonly OAuthCheck[]
  /** Maps what the provider says about the user to `{ id, name, email, image }`. */
  profile?: ProfileMapper
  /**
   * Keep the provider's tokens (access, refresh, ID token) with the session, for
   * `getAccessToken(req, id)`. Default false: nothing is kept that the app does not need.
   */
  tokens?: boolean
}

/** `passportStrategy()`: any Passport strategy built on passport-oauth2. */
export interface PassportStrategyOptions extends CommonOptions {
  /** The strategy class itself, such as `require('passport-github2').Strategy`. */
  strategy: StrategyClass
  /** The strategy's own options, in its own spelling (`clientID`, `clientSecret`, `scope`, …). */
  options: Record<string, unknown>
}

/** `oauth2()`: a generic OAuth 2 provider with explicit endpoints. */
export interface OAuth2Options extends CommonOptions {
  clientId: string
  clientSecret: string
  authorizationUrl: string
  tokenUrl: string
  /** Read with the access token in the Authorization header; without it the profile is `{}`. */
  userinfoUrl?: string
  /** One string, space-separated. */
  scope?: string
}

/** `oidc()`: an OpenID Connect issuer, its endpoints and keys found by discovery. */
export interface OidcOptions extends CommonOptions {
  issuer: string
  clientId: string
  clientSecret: string
  /** One string, space-separated, with `openid`. Default `'openid email profile'`. */
  scope?: string
  /**
   * `'local'` (default): `POST /signout` ends this app's session only. `'provider'`: it then sends
   * the browser to the provider's end-session endpoint too (OpenID Connect RP-Initiated Logout).
   */
  logout?: 'local' | 'provider'
  /** The end-session endpoint, for a provider whose discovery document names none. */
  endSessionUrl?: string
  /**
   * The authentication context classes to ask for, sent as `acr_values` in every authorization
   * request; an ID token whose `acr` is one of them counts as two factors (docs/mfa.md). List only
   * classes that mean a second factor at this provider, such as `['http://schemas.openid.net/pape/policies/2007/06/multi-factor']`.
   */
  acrValues?: readonly string[]
}

const COMMON_KEYS = ['id', 'name', 'checks', 'profile', 'tokens'] as const
const STRATEGY_KEYS = [...COMMON_KEYS, 'strategy', 'options']
const OAUTH2_KEYS = [...COMMON_KEYS, 'clientId', 'clientSecret', 'authorizationUrl', 'tokenUrl', 'userinfoUrl', 'scope']
const OIDC_KEYS = [
  ...COMMON_KEYS,
  'issuer',
  'clientId',
  'clientSecret',
  'scope',
  'logout',
  'endSessionUrl',
  'acrValues',
]

/** Any Passport strategy built on passport-oauth2, e.g. passport-github2's `Strategy`. */
export function passportStrategy(options: PassportStrategyOptions): StrategyProvider {
  const where = start(options, 'passportStrategy', '{ id, strategy, options }', STRATEGY_KEYS, STRATEGY_HINTS)
  return Object.freeze({
    ...common(options, false),
    protocol: 'strategy' as const,
    strategy: strategyClass(options.strategy, `${where}.strategy`),
    options: Object.freeze({ ...strategyOptions(options.options, `${where}.options`) }),
  })
}

/** A generic OAuth 2 provider on passport-oauth2. */
export function oauth2(options: OAuth2Options): OAuth2Provider {
  const where = start(
    options,
    'oauth2',
    '{ id, clientId, clientSecret, authorizationUrl, tokenUrl }',
    OAUTH2_KEYS,
    OAUTH2_HINTS,
  )
  const userinfoUrl = options.userinfoUrl === undefined ? undefined : url(options.userinfoUrl, `${where}.userinfoUrl`)
  const scope = scopeOf(options.scope, `${where}.scope`, false)
  return Object.freeze({
    ...common(options, false),
    protocol: 'oauth2' as const,
    ...client(options, where),
    authorizationUrl: url(options.authorizationUrl, `${where}.authorizationUrl`),
    tokenUrl: url(options.tokenUrl, `${where}.tokenUrl`),
    ...(userinfoUrl === undefined ? {} : { userinfoUrl }),
    ...(scope === undefined ? {} : { scope }),
  })
}

/** OpenID Connect: endpoints and keys from `{issuer}/.well-known/openid-configuration`. */
export function oidc(options: OidcOptions): OidcProvider {
  const where = start(options, 'oidc', '{ id, issuer, clientId, clientSecret }', OIDC_KEYS, OIDC_HINTS)
  return Object.freeze({
    ...common(options, true),
    protocol: 'oidc' as const,
    // Exactly as configured: discovery, the ID token's `iss` and RFC 9207's `iss` must name it so,
    // and some issuers end in a slash (Auth0's does).
    issuer: url(options.issuer, `${where}.issuer`),
    ...client(options, where),
    scope: scopeOf(options.scope, `${where}.scope`, true) ?? 'openid email profile',
    ...logoutOf(options, where),
    ...acrValuesOf(options.acrValues, `${where}.acrValues`),
  })
}

/** A non-empty list of acr values, each a non-empty string without spaces (they are sent space-separated). */
function acrValuesOf(value: unknown, option: string): { acrValues?: readonly string[] } {
  if (value === undefined) return {}
  if (typeof value === 'string')
    throw new ConfigurationError(`\`${option}\` is a list of acr values: write ${JSON.stringify(value.split(' '))}`)
  const valid =
    Array.isArray(value) &&
    value.length > 0 &&
    value.length <= 16 &&
    value.every((acr) => typeof acr === 'string' && /^[\x21-\x7e]{1,256}$/.test(acr))
  if (!valid)
    throw new ConfigurationError(
      `\`${option}\` must be a list of 1 to 16 acr values (strings without spaces) that mean a second factor at this provider, such as ['urn:example:mfa'], or left out; got ${describe(value)}`,
    )
  return { acrValues: Object.freeze([...new Set(value as string[])]) }
}

function logoutOf(options: OidcOptions, where: string) {
  const logout = options.logout ?? 'local'
  if (logout !== 'local' && logout !== 'provider')
    throw new ConfigurationError(
      `\`${where}.logout\` must be 'local' (sign-out ends this app's session) or 'provider' (and the provider's too); got ${describe(logout)}`,
    )
  if (options.endSessionUrl !== undefined && logout !== 'provider')
    throw new ConfigurationError(
      `\`${where}.endSessionUrl\` is used only with \`logout: 'provider'\`: add it, or remove endSessionUrl`,
    )
  const endSessionUrl =
    options.endSessionUrl === undefined ? undefined : url(options.endSessionUrl, `${where}.endSessionUrl`)
  return { logout, ...(endSessionUrl === undefined ? {} : { endSessionUrl }) }
}

/** The options object and its keys, checked before anything is read from it; the provider's name in messages. */
function start(
  options: unknown,
  factory: string,
  shape: string,
  known: readonly string[],
  hints: Parameters<typeof checkKeys>[3],
): string {
  if (!isRecord(options))
    throw new ConfigurationError(`${factory}() takes an options object such as ${shape}; got ${describe(options)}`)
  const where = providerName(options)
  checkKeys(options, known, `${where}.`, hints)
  return where
}

function common(options: CommonOptions, isOidc: boolean) {
  const where = providerName(options)
  if (typeof options.id !== 'string' || options.id === '')
    throw new ConfigurationError(`\`${where}.id\` is required: a URL-safe name such as 'github'`)
  const name = optionalString(options.name, `${where}.name`, "'GitHub'")
  const checks = options.checks ?? (isOidc ? ['state', 'pkce', 'nonce'] : ['state', 'pkce'])
  if (!Array.isArray(checks) || !checks.every((check) => check === 'state' || check === 'pkce' || check === 'nonce')) {
    throw new ConfigurationError(
      `\`${where}.checks\` must be a list of 'state', 'pkce' and 'nonce'; got ${describe(checks)}`,
    )
  }
  if (!checks.includes('state'))
    throw new ConfigurationError(
      `\`${where}.checks\` must include 'state': it binds the callback to the browser that started the sign-in and cannot be turned off`,
    )
  if (checks.includes('nonce') && !isOidc)
    throw new ConfigurationError(
      `\`${where}.checks\` 'nonce' needs an ID token: use oidc() for an OpenID Connect provider`,
    )
  if (options.profile !== undefined && typeof options.profile !== 'function')
    throw new ConfigurationError(
      `\`${where}.profile\` must be a function mapping the profile to { id, name, email, image }; got ${describe(options.profile)}`,
    )
  if (options.tokens !== undefined && typeof options.tokens !== 'boolean')
    throw new ConfigurationError(
      `\`${where}.tokens\` must be true (keep the provider's tokens for getAccessToken) or false; got ${describe(options.tokens)}`,
    )
  return {
    id: options.id,
    name: name ?? options.id,
    type: 'oauth' as const,
    checks: Object.freeze([...(checks as readonly OAuthCheck[])]),
    ...(options.profile ? { profile: options.profile } : {}),
    ...(options.tokens === true ? { tokens: true as const } : {}),
  }
}

function client(options: { clientId: unknown; clientSecret: unknown }, where: string) {
  return {
    clientId: requiredString(options.clientId, `${where}.clientId`, 'process.env.CLIENT_ID'),
    clientSecret: requiredString(options.clientSecret, `${where}.clientSecret`, 'process.env.CLIENT_SECRET'),
  }
}

function providerName(options: { id?: unknown }): string {
  return `providers[${JSON.stringify(typeof options.id === 'string' ? options.id : '?')}]`
}

function url(value: unknown, option: string): string {
  if (typeof value !== 'string' || !parseHttpUrl(value))
    throw new ConfigurationError(`\`${option}\` must be an absolute http(s) URL; got ${describe(value)}`)
  return value
}

/** One string of space-separated scopes; for OpenID Connect it must ask for `openid` (else no ID token comes). */
function scopeOf(value: unknown, option: string, isOidc: boolean): string | undefined {
  if (Array.isArray(value) && value.every((scope) => typeof scope === 'string'))
    throw new ConfigurationError(
      `\`${option}\` is one string of space-separated scopes: write ${JSON.stringify(value.join(' '))}`,
    )
  const scope = optionalString(value, option, isOidc ? "'openid email profile'" : "'read:user'")
  if (isOidc && scope !== undefined && !scope.split(' ').includes('openid'))
    throw new ConfigurationError(
      `\`${option}\` must include 'openid' (without it the issuer sends no ID token and every sign-in fails); got ${describe(scope)}`,
    )
  return scope
}

/**
 * A class, not a factory (the package constructs it itself; arrow functions have no prototype),
 * and one built on passport-oauth2: the package adds its parameters through authorizationParams()
 * and reads the profile through userProfile(), which a strategy such as passport-local lacks.
 */
function strategyClass(value: unknown, option: string): StrategyClass {
  const proto = typeof value === 'function' ? (value.prototype as Record<string, unknown> | undefined) : undefined
  if (typeof proto?.authenticate !== 'function')
    throw new ConfigurationError(
      `\`${option}\` must be a Passport strategy class such as require('passport-github2').Strategy (the class itself, not a function that builds one); got ${describe(value)}`,
    )
  if (!['authorizationParams', 'tokenParams', 'userProfile'].every((method) => typeof proto[method] === 'function'))
    throw new ConfigurationError(
      `\`${option}\` is not an OAuth 2 strategy (it has no authorizationParams(), tokenParams() and userProfile() of passport-oauth2): the package signs in with OAuth 2 and OpenID Connect strategies built on passport-oauth2 (or oauth2() and oidc()), and with e-mail links (email()); passwords (passport-local) and other protocols are not supported`,
    )
  return value as StrategyClass
}

function strategyOptions(value: unknown, option: string): Record<string, unknown> {
  if (!isRecord(value))
    throw new ConfigurationError(
      `\`${option}\` must be the strategy's options object ({ clientID, clientSecret, scope, … }); got ${describe(value)}`,
    )
  for (const reserved of ['callbackURL', 'store', 'state', 'pkce', 'passReqToCallback']) {
    if (reserved in value)
      throw new ConfigurationError(
        `\`${option}.${reserved}\` is set by the package (callback URL, state store, PKCE); remove it`,
      )
  }
  return value
}
