import type { Strategy } from 'passport'
import type { ProviderInfo, ProviderUser } from '../../infra/config/providers'

/** The checks an OAuth flow makes. `state` cannot be turned off. */
export type OAuthCheck = 'state' | 'pkce' | 'nonce'

/** The provider's tokens, as the token endpoint returned them. */
export interface OAuthTokens {
  access_token: string
  refresh_token?: string
  id_token?: string
  token_type?: string
  scope?: string
  expires_at?: number
  [field: string]: unknown
}

/** Maps what the provider says about the user (a Passport profile, userinfo or ID token claims) to the user. */
export type ProfileMapper = (
  profile: Record<string, unknown>,
  tokens: OAuthTokens,
) => ProviderUser | Promise<ProviderUser>

/**
 * A Passport strategy class built on passport-oauth2: `new Strategy(options, verify)`. Its
 * parameters are typed `never` so that every strategy's own option and verify types fit.
 */
export type StrategyClass = new (options: never, verify: never) => Strategy

export interface OAuthBase extends ProviderInfo {
  readonly type: 'oauth'
  readonly checks: readonly OAuthCheck[]
  readonly profile?: ProfileMapper
  /** Keep the provider's tokens with the session, for `getAccessToken` (lib/features/provider-tokens/). */
  readonly tokens?: true
}

/** Any Passport strategy built on passport-oauth2 (GitHub, Google, …). */
export interface StrategyProvider extends OAuthBase {
  readonly protocol: 'strategy'
  readonly strategy: StrategyClass
  readonly options: Readonly<Record<string, unknown>>
}

/** A plain OAuth 2 provider with explicit endpoints. */
export interface OAuth2Provider extends OAuthBase {
  readonly protocol: 'oauth2'
  readonly clientId: string
  readonly clientSecret: string
  readonly authorizationUrl: string
  readonly tokenUrl: string
  readonly userinfoUrl?: string
  readonly scope?: string
}

/** OpenID Connect, configured by discovery from the issuer. */
export interface OidcProvider extends OAuthBase {
  readonly protocol: 'oidc'
  readonly issuer: string
  readonly clientId: string
  readonly clientSecret: string
  readonly scope: string
  /** `'provider'`: sign-out goes on to the provider's end-session endpoint (RP-Initiated Logout). */
  readonly logout: 'local' | 'provider'
  /** Configured, for a provider whose discovery names no end_session_endpoint. */
  readonly endSessionUrl?: string
  /** Sent as `acr_values`; an ID token whose `acr` is one of them counts as two factors. */
  readonly acrValues?: readonly string[]
}

export type OAuthProvider = StrategyProvider | OAuth2Provider | OidcProvider

declare module '../../infra/config/providers' {
  interface ProviderKinds {
    oauth: OAuthProvider
  }
}

declare module '../../infra/logger' {
  interface LogEvents {
    'provider.discovery_failed': true
  }
}
