import { oauth2, oidc, passportStrategy, type OidcOptions, type Provider } from '../../lib'
import { thirdPartyStrategy } from './third-party-strategy'

/**
 * Every kind of OAuth provider, all at one identity provider and its client `app`: `oidc`
 * (discovery, ID token, nonce), `plain` (oauth2 with fixed endpoints), `passport` (a third-party
 * Passport strategy), `wrongsecret` (the IdP refuses its client secret) and `deadtoken` (a token
 * endpoint nobody listens on). Keyed by id, so that a harness lists them in its own order.
 */
export const OAUTH_PROVIDER_IDS = ['oidc', 'plain', 'passport', 'wrongsecret', 'deadtoken'] as const
export type OAuthProviderId = (typeof OAUTH_PROVIDER_IDS)[number]

export interface Discovery {
  authorization_endpoint: string
  token_endpoint: string
  userinfo_endpoint: string
}

export async function discover(issuer: string): Promise<Discovery> {
  return (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as Discovery
}

export function oauthProviders(
  issuer: string,
  meta: Discovery,
  secrets: { client: string; wrong: string; deadPort: number },
  /** More options of the `oidc` provider. */
  more: Pick<OidcOptions, 'acrValues'> = {},
): Record<OAuthProviderId, Provider> {
  const clientSecret = secrets.client
  return {
    oidc: oidc({ id: 'oidc', name: 'Demo', issuer, clientId: 'app', clientSecret, ...more }),
    plain: oauth2({
      id: 'plain',
      name: 'Plain',
      clientId: 'app',
      clientSecret,
      authorizationUrl: meta.authorization_endpoint,
      tokenUrl: meta.token_endpoint,
      userinfoUrl: meta.userinfo_endpoint,
      scope: 'openid email profile',
    }),
    passport: passportStrategy({
      id: 'passport',
      name: 'Passport',
      strategy: thirdPartyStrategy(issuer, meta),
      options: { clientID: 'app', clientSecret, scope: ['openid', 'email', 'profile'] },
    }),
    wrongsecret: oidc({ id: 'wrongsecret', issuer, clientId: 'app', clientSecret: secrets.wrong }),
    deadtoken: oauth2({
      id: 'deadtoken',
      clientId: 'app',
      clientSecret,
      authorizationUrl: meta.authorization_endpoint,
      tokenUrl: `http://127.0.0.1:${secrets.deadPort}/token`,
      scope: 'openid',
    }),
  }
}
