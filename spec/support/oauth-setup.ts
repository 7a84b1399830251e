import { randomBytes } from 'node:crypto'
import type { AuthOptions } from '../../lib'
import { freeSite, serve, type Served } from './app'
import { freePort } from './process'
import { discover, OAUTH_PROVIDER_IDS, oauthProviders } from './oauth-providers'
import { startProxiedIdp, type ProxiedIdp, type TokenExchange } from './idp-proxy'
import { RecordingBrowser, Secrets } from './leaks'

/**
 * The app with every kind of OAuth provider (./oauth-providers), all at the real IdP behind the
 * recording proxy (./idp-proxy). Every secret is random, so that none can
 * turn up in a log by chance: the service's secrets (two, as during a rotation), the client
 * secrets, and the local part of the user's e-mail address (not the account id, which a log may name).
 */
export interface OAuthApp {
  served: Served
  proxied: ProxiedIdp
  /** A new set holding the secrets of the configuration. */
  secrets(): Secrets
  stop(): Promise<void>
}

export const PROVIDERS = OAUTH_PROVIDER_IDS

const random = (prefix: string) => `${prefix}-${randomBytes(12).toString('hex')}`

export async function startOAuthApp(options: Partial<AuthOptions> = {}): Promise<OAuthApp> {
  const site = await freeSite()
  const serviceSecrets = [randomBytes(32).toString('base64url'), randomBytes(32).toString('base64url')]
  const clientSecret = random('client-secret')
  const wrongSecret = random('wrong-secret')
  const address = `${random('mailbox')}@example.com`
  const proxied = await startProxiedIdp(
    [
      {
        client_id: 'app',
        client_secret: clientSecret,
        redirect_uris: PROVIDERS.map((id) => `${site.base}/callback/${id}`),
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    [{ accountId: 'alice', name: 'Alice Example', email: address }],
  )
  const { issuer } = proxied
  const five = oauthProviders(issuer, await discover(issuer), {
    client: clientSecret,
    wrong: wrongSecret,
    deadPort: await freePort(),
  })
  const served = await serve(
    {
      secret: serviceSecrets,
      providers: PROVIDERS.map((id) => five[id]),
      ...options,
    },
    { site },
  ).catch(async (error: unknown) => {
    await proxied.stop() // else its server keeps jest from exiting
    throw error
  })
  return {
    served,
    proxied,
    secrets: () =>
      new Secrets()
        .add('service secret', serviceSecrets[0])
        .add('service secret', serviceSecrets[1])
        .add('client secret', clientSecret)
        .add('client secret', wrongSecret)
        .add('e-mail local part', address.slice(0, address.indexOf('@'))),
    stop: async () => {
      await served.close()
      await proxied.stop()
    },
  }
}

/**
 * A sign-in at `provider` as its user takes it (the sign-in POST, the IdP's pages, back to the
 * callback), keeping what it used: the state and nonce the app sent, the code the IdP sent back,
 * and what crossed the token endpoint. The callback's answer.
 */
export async function signInWith(
  app: OAuthApp,
  browser: RecordingBrowser,
  secrets: Secrets,
  provider: string,
  action: 'login' | 'deny' = 'login',
): Promise<{ res: Response; back: URL }> {
  const before = app.proxied.exchanges.length
  const authorization = await browser.authorizationUrl(provider)
  secrets.add('state', authorization.searchParams.get('state'))
  const nonce = authorization.searchParams.get('nonce')
  if (nonce !== null) secrets.add('nonce', nonce)
  const back = await browser.login(authorization, action)
  if (action === 'login') secrets.add('authorization code', back.searchParams.get('code'))
  const res = await browser.returnTo(back)
  keepExchanges(app.proxied.exchanges.slice(before), secrets)
  return { res, back }
}

/** The secrets of token requests and answers: what the app sent, and the tokens it was given. */
export function keepExchanges(exchanges: readonly TokenExchange[], secrets: Secrets): void {
  for (const { request, response } of exchanges) {
    secrets.add('authorization code', request.get('code'))
    secrets.add('client secret', request.get('client_secret'))
    const verifier = request.get('code_verifier')
    if (verifier !== null) secrets.add('PKCE verifier', verifier)
    for (const [field, label] of [
      ['access_token', 'access token'],
      ['id_token', 'ID token'],
      ['refresh_token', 'refresh token'],
    ] as const) {
      const token = response?.[field]
      if (typeof token === 'string') secrets.add(label, token)
    }
  }
}
