import type { Express } from 'express'
import { oidc, type AuthOptions, type AuthRouter, type LogEntry, type OidcOptions } from '../../lib'
import { freeSite, serve } from './app'
import { startIdp, type Idp, type StartIdpOptions } from './idp'
import { freePort } from './process'
import { discover, oauthProviders } from './oauth-providers'

/**
 * The real thing on loopback: the app on `localhost`, the oidc-provider identity provider on
 * `127.0.0.1` (two sites, as in production); a spec drives it with ../support/browser.
 */
export interface Harness {
  base: string
  origin: string
  idp: Idp
  logs: LogEntry[]
  /** The router `auth()` made, with its helpers. */
  router: AuthRouter
  stop(): Promise<void>
}

/**
 * `idp`: the IdP's users and switches (default: alice alone); `setup`: the app's own routes, before
 * the service's; `oidc`: more options of the `oidc` provider.
 */
export interface HarnessExtras {
  idp?: Pick<StartIdpOptions, 'users' | 'editableUsers'>
  setup?: (app: Express) => void
  /** More options of the `oidc` provider. */
  oidc?: Pick<OidcOptions, 'acrValues'>
  /** The IdP puts `auth_time` in every ID token for the app (`require_auth_time`), not only when asked. */
  authTime?: true
}

export async function startHarness(options: Partial<AuthOptions> = {}, extras: HarnessExtras = {}): Promise<Harness> {
  const site = await freeSite()
  const deadPort = await freePort()
  const callbacks = ['oidc', 'plain', 'wrongsecret', 'deadtoken', 'passport'].map((id) => `${site.base}/callback/${id}`)
  const idp = await startIdp({
    ...extras.idp,
    clients: [
      {
        client_id: 'app',
        client_secret: 'app-secret',
        redirect_uris: callbacks,
        token_endpoint_auth_method: 'client_secret_post',
        ...(extras.authTime ? { require_auth_time: true } : {}),
      },
      {
        client_id: 'second',
        client_secret: 'second-secret',
        redirect_uris: [`${site.base}/callback/second`],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
  })
  const five = oauthProviders(
    idp.issuer,
    await discover(idp.issuer),
    { client: 'app-secret', wrong: 'not-the-secret', deadPort },
    extras.oidc,
  )
  const served = await serve(
    {
      providers: [
        five.oidc,
        oidc({ id: 'second', name: 'Second', issuer: idp.issuer, clientId: 'second', clientSecret: 'second-secret' }),
        five.plain,
        five.wrongsecret,
        five.deadtoken,
        five.passport,
        oidc({ id: 'offline', issuer: `http://127.0.0.1:${deadPort}`, clientId: 'x', clientSecret: 'y' }),
      ],
      ...options,
    },
    { site, ...(extras.setup ? { setup: extras.setup } : {}) },
  )
  return {
    base: served.base,
    origin: served.origin,
    idp,
    logs: served.logs,
    router: served.router,
    stop: async () => {
      await served.close()
      await idp.stop()
    },
  }
}
