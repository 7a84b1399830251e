import { ConfigurationError } from '../../errors'
import type { OAuth2Provider, OAuthCheck, OidcProvider, StrategyProvider, ProfileMapper, StrategyClass } from '../types'
import { parseHttpUrl } from '../../urls/http-url'
import { isRecord } from '../../util/object'

/**
 * The provider factories an app puts in `providers`. Each checks its own options when it is
 * called (at start-up), naming the option and the fix.
 */

interface Common {
  id: string
  name?: string
  checks?: readonly OAuthCheck[]
  profile?: ProfileMapper
}

/** Any Passport strategy built on passport-oauth2, e.g. passport-github2's `Strategy`. */
export function passportStrategy(
  options: Common & { strategy: StrategyClass; options: Record<string, unknown> },
): StrategyProvider {
  const where = providerName(options)
  // A class, not a factory: the package constructs it itself (arrow functions have no prototype).
  const proto = (options.strategy as { prototype?: { authenticate?: unknown } } | undefined)?.prototype
  if (typeof options.strategy !== 'function' || typeof proto?.authenticate !== 'function') {
    throw new ConfigurationError(
      `\`${where}.strategy\` must be a Passport strategy class such as require('passport-github2').Strategy (the class itself, not a function that builds one)`,
    )
  }
  const own = requireObject(options.options, `${where}.options`)
  for (const reserved of ['callbackURL', 'store', 'state', 'pkce', 'passReqToCallback']) {
    if (reserved in own)
      throw new ConfigurationError(
        `\`${where}.options.${reserved}\` is set by the package (callback URL, state store, PKCE); remove it`,
      )
  }
  return Object.freeze({
    ...common(options, false),
    protocol: 'strategy' as const,
    strategy: options.strategy,
    options: Object.freeze({ ...own }),
  })
}

/** A generic OAuth 2 provider on passport-oauth2. */
export function oauth2(
  options: Common & {
    clientId: string
    clientSecret: string
    authorizationUrl: string
    tokenUrl: string
    userinfoUrl?: string
    scope?: string
  },
): OAuth2Provider {
  const where = providerName(options)
  for (const key of ['clientId', 'clientSecret'] as const) requireString(options[key], `${where}.${key}`)
  for (const key of ['authorizationUrl', 'tokenUrl'] as const) requireUrl(options[key], `${where}.${key}`)
  if (options.userinfoUrl !== undefined) requireUrl(options.userinfoUrl, `${where}.userinfoUrl`)
  return Object.freeze({
    ...common(options, false),
    protocol: 'oauth2' as const,
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    authorizationUrl: options.authorizationUrl,
    tokenUrl: options.tokenUrl,
    ...(options.userinfoUrl === undefined ? {} : { userinfoUrl: options.userinfoUrl }),
    ...(options.scope === undefined ? {} : { scope: options.scope }),
  })
}

/** OpenID Connect: endpoints and keys from `{issuer}/.well-known/openid-configuration`. */
export function oidc(
  options: Common & { issuer: string; clientId: string; clientSecret: string; scope?: string },
): OidcProvider {
  const where = providerName(options)
  requireUrl(options.issuer, `${where}.issuer`)
  for (const key of ['clientId', 'clientSecret'] as const) requireString(options[key], `${where}.${key}`)
  return Object.freeze({
    ...common(options, true),
    protocol: 'oidc' as const,
    // Exactly as configured: discovery, the ID token's `iss` and RFC 9207's `iss` must name it so,
    // and some issuers end in a slash (Auth0's does).
    issuer: options.issuer,
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    scope: options.scope ?? 'openid email profile',
  })
}

function common(options: Common, isOidc: boolean) {
  const where = providerName(options)
  if (typeof options.id !== 'string' || options.id === '')
    throw new ConfigurationError(`\`${where}.id\` is required: a URL-safe name such as 'github'`)
  const checks = options.checks ?? (isOidc ? ['state', 'pkce', 'nonce'] : ['state', 'pkce'])
  if (!Array.isArray(checks) || !checks.every((check) => check === 'state' || check === 'pkce' || check === 'nonce')) {
    throw new ConfigurationError(`\`${where}.checks\` must be a list of 'state', 'pkce' and 'nonce'`)
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
      `\`${where}.profile\` must be a function mapping the profile to { id, name, email, image }`,
    )
  return {
    id: options.id,
    name: typeof options.name === 'string' && options.name !== '' ? options.name : options.id,
    type: 'oauth' as const,
    checks: Object.freeze([...(checks as readonly OAuthCheck[])]),
    ...(options.profile ? { profile: options.profile } : {}),
  }
}

function providerName(options: { id?: unknown }): string {
  return `providers[${JSON.stringify(typeof options?.id === 'string' ? options.id : '?')}]`
}

function requireString(value: unknown, option: string): void {
  if (typeof value !== 'string' || value === '')
    throw new ConfigurationError(`\`${option}\` is required (a non-empty string)`)
}

function requireUrl(value: unknown, option: string): void {
  if (!parseHttpUrl(value))
    throw new ConfigurationError(`\`${option}\` must be an absolute http(s) URL; got ${JSON.stringify(value)}`)
}

function requireObject(value: unknown, option: string): Record<string, unknown> {
  if (!isRecord(value))
    throw new ConfigurationError(
      `\`${option}\` must be the strategy's options object ({ clientID, clientSecret, scope, … })`,
    )
  return value
}
