import { oidc, type AuthOptions } from '../../lib'
import { freeSite, serve, type Served } from './app'
import { startIdp, type Idp } from './idp'

/** The client secret the app and the test IdP share (a spec scans for it). */
export const OIDC_APP_SECRET = 'client-secret-oidc-app-123'

export interface OidcApp {
  idp: Idp
  served: Served
  stop(): Promise<void>
}

/**
 * The service with one oidc() provider `idp` at the test IdP (./idp.ts, its own process on
 * 127.0.0.1), its client registered with the app's callback; `options` over the rest.
 */
export async function startOidcApp(options: AuthOptions = {}): Promise<OidcApp> {
  const site = await freeSite()
  const idp = await startIdp({
    clients: [
      {
        client_id: 'app',
        client_secret: OIDC_APP_SECRET,
        redirect_uris: [`${site.base}/callback/idp`],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
  })
  const provider = oidc({ id: 'idp', issuer: idp.issuer, clientId: 'app', clientSecret: OIDC_APP_SECRET })
  const served = await serve({ providers: [provider], ...options }, { site }).catch(async (error: unknown) => {
    await idp.stop()
    throw error
  })
  return {
    idp,
    served,
    async stop() {
      await served.close()
      await idp.stop()
    },
  }
}
