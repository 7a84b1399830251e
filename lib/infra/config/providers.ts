import type { Strategy } from 'passport'
import type { PasskeyStore } from '../../features/passkey/store'
import type { VerificationStore } from '../../features/email/store'

/** What every configured provider has; OAuth and e-mail providers add their own parts. */
export interface ProviderInfo {
  readonly id: string
  readonly name: string
  readonly type: 'oauth' | 'email' | 'webauthn'
}

/** The checks an OAuth flow makes. `state` cannot be turned off. */
export type OAuthCheck = 'state' | 'pkce' | 'nonce'

/** The user as a provider's profile mapper gives it. `id` is the account id at the provider. */
export interface ProviderUser {
  id: string
  name?: string | null
  email?: string | null
  image?: string | null
}

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

interface OAuthBase extends ProviderInfo {
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
}

export type OAuthProvider = StrategyProvider | OAuth2Provider | OidcProvider

/** What `sendVerificationRequest` is given: where to send, the link, the service's host, the link's end. */
export interface VerificationRequest {
  /** The normalised address. */
  readonly identifier: string
  readonly url: string
  readonly host: string
  readonly expires: Date
}

/** The part of a nodemailer transport the package uses. */
export interface MailTransport {
  sendMail(message: { from: string; to: string; subject: string; text: string; html: string }): Promise<unknown>
}

/** Sign-in with a link sent by e-mail (`email()`). */
export interface EmailProvider extends ProviderInfo {
  readonly type: 'email'
  readonly protocol: 'email'
  readonly from: string
  /** Absent only when `sendVerificationRequest` sends the mail itself. */
  readonly transport: MailTransport | undefined
  /** Seconds a link lives. */
  readonly maxAge: number
  /** GET on the link shows a page whose button spends it (mail scanners open every link). */
  readonly confirm: boolean
  /** Milliseconds sending may take. */
  readonly sendTimeout: number
  readonly rateLimits: {
    readonly addressPerMinute: number
    readonly addressPerHour: number
    readonly ipPerHour: number
  }
  readonly sendVerificationRequest: ((request: VerificationRequest) => void | Promise<void>) | undefined
  readonly normalizeIdentifier: ((address: string) => string) | undefined
  /** Where links wait to be used; the in-memory default when absent. */
  readonly store: VerificationStore | undefined
}

/**
 * What the factories return and `auth({ providers })` takes. The union stays narrow from the
 * factories through resolveConfig to the registry (`type`, then `protocol`), so nothing downstream
 * casts. Its members' fields are the package's own: the public types are the factories' options.
 */
export type Provider = OAuthProvider | EmailProvider | PasskeyProvider

/** Sign-in with a passkey (WebAuthn), `passkey()`. */
export interface PasskeyProvider extends ProviderInfo {
  readonly type: 'webauthn'
  readonly protocol: 'webauthn'
  /** The name authenticators show beside the passkey (the relying party's name). */
  readonly relyingPartyName: string | undefined
  /** `required` unless the app set `dangerouslyAllowWithoutUserVerification`. */
  readonly userVerification: 'required' | 'preferred'
  /** A visitor without a session may create an account with a passkey only (the signIn callback decides). */
  readonly signUp: boolean
  /** Seconds a ceremony's challenge lives. */
  readonly challengeMaxAge: number
  /** Seconds after signing in during which a user may add a passkey; older sessions sign in again first. */
  readonly registrationMaxAge: number
  /** The app's own store; Redis's (with `redis`) or this process's memory when absent. */
  readonly store: PasskeyStore | undefined
}
