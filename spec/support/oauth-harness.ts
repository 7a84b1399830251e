import { oauth2, oidc, passportStrategy, type AuthOptions, type LogEntry } from '../../lib'
import { freeSite, serve } from './app'
import { startIdp, type Idp } from './idp'
import { freePort } from './process'
import { thirdPartyStrategy } from './third-party-strategy'

/**
 * The real thing on loopback: the app on `localhost`, the oidc-provider identity provider on
 * `127.0.0.1` (two sites, as in production); a spec drives it with ../support/browser.
 */
export interface Harness {
  base: string
  origin: string
  idp: Idp
  logs: LogEntry[]
  stop(): Promise<void>
}

interface Discovery {
  authorization_endpoint: string
  token_endpoint: string
  userinfo_endpoint: string
}

export async function startHarness(options: Partial<AuthOptions> = {}): Promise<Harness> {
  const site = await freeSite()
  const deadPort = await freePort()
  const callbacks = ['oidc', 'plain', 'wrongsecret', 'deadtoken', 'passport'].map((id) => `${site.base}/callback/${id}`)
  const idp = await startIdp({
    clients: [
      {
        client_id: 'app',
        client_secret: 'app-secret',
        redirect_uris: callbacks,
        token_endpoint_auth_method: 'client_secret_post',
      },
      {
        client_id: 'second',
        client_secret: 'second-secret',
        redirect_uris: [`${site.base}/callback/second`],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
  })
  const meta = (await (await fetch(`${idp.issuer}/.well-known/openid-configuration`)).json()) as Discovery
  const served = await serve(
    {
      providers: [
        oidc({ id: 'oidc', name: 'Demo', issuer: idp.issuer, clientId: 'app', clientSecret: 'app-secret' }),
        oidc({ id: 'second', name: 'Second', issuer: idp.issuer, clientId: 'second', clientSecret: 'second-secret' }),
        oauth2({
          id: 'plain',
          name: 'Plain',
          clientId: 'app',
          clientSecret: 'app-secret',
          authorizationUrl: meta.authorization_endpoint,
          tokenUrl: meta.token_endpoint,
          userinfoUrl: meta.userinfo_endpoint,
          scope: 'openid email profile',
        }),
        oidc({ id: 'wrongsecret', issuer: idp.issuer, clientId: 'app', clientSecret: 'not-the-secret' }),
        oauth2({
          id: 'deadtoken',
          clientId: 'app',
          clientSecret: 'app-secret',
          authorizationUrl: meta.authorization_endpoint,
          tokenUrl: `http://127.0.0.1:${deadPort}/token`,
          scope: 'openid',
        }),
        passportStrategy({
          id: 'passport',
          name: 'Passport',
          strategy: thirdPartyStrategy(idp.issuer, meta),
          options: { clientID: 'app', clientSecret: 'app-secret', scope: ['openid', 'email', 'profile'] },
        }),
        oidc({ id: 'offline', issuer: `http://127.0.0.1:${deadPort}`, clientId: 'x', clientSecret: 'y' }),
      ],
      ...options,
    },
    { site },
  )
  return {
    base: served.base,
    origin: served.origin,
    idp,
    logs: served.logs,
    stop: async () => {
      await served.close()
      await idp.stop()
    },
  }
}
