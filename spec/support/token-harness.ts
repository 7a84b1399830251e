import { randomBytes } from 'node:crypto'
import type { Express } from 'express'
import { AuthError, oidc, type AuthOptions, type AuthRouter } from '../../lib'
import { freeSite, serve, type Served } from './app'
import { Browser } from './browser'
import { startIdp, type Idp, type StartIdpOptions } from './idp'

/**
 * The app with one oidc() provider `idp` keeping its tokens (`tokens: true`) at the real IdP with
 * refresh tokens (rotated, with reuse detection; access tokens of 30 s, 3600 s once refreshed, so
 * the first getAccessToken refreshes; grants counted), and GET /token answering getAccessToken.
 */
export interface TokenApp {
  idp: Idp
  served: Served
  /** The token events the app received, in order. */
  events: Array<{ name: string; message: unknown }>
  /** A browser signed in at `idp`. */
  signedIn(): Promise<Browser>
  /** GET /token (`query`: `?force=1`, `?minValidity=0`): getAccessToken's answer, or `{ error: code }` with 500. */
  token(browser: Browser, query?: string): Promise<{ status: number; body: TokenBody }>
  stop(): Promise<void>
}

export interface TokenBody {
  accessToken?: string
  expiresAt?: number
  tokenType?: string
  scope?: string
  error?: string
}

export async function startTokenApp(
  auth: Partial<AuthOptions> = {},
  idpOptions: Partial<StartIdpOptions> = {},
): Promise<TokenApp> {
  const site = await freeSite()
  const clientSecret = randomBytes(16).toString('hex')
  const idp = await startIdp({
    clients: [
      {
        client_id: 'app',
        client_secret: clientSecret,
        redirect_uris: [`${site.base}/callback/idp`],
        token_endpoint_auth_method: 'client_secret_post',
        grant_types: ['authorization_code', 'refresh_token'],
      },
    ],
    refreshTokens: true,
    rotateRefreshToken: true,
    accessTokenTtl: 30,
    refreshedAccessTokenTtl: 3600,
    countGrants: true,
    tokenEndpointDelayMs: 300,
    ...idpOptions,
  })
  const events: TokenApp['events'] = []
  const holder: { router?: AuthRouter } = {}
  const served = await serve(
    {
      providers: [
        oidc({
          id: 'idp',
          issuer: idp.issuer,
          clientId: 'app',
          clientSecret,
          scope: 'openid email offline_access',
          tokens: true,
        }),
      ],
      events: {
        tokenRefreshed: (message) => void events.push({ name: 'tokenRefreshed', message }),
        tokenRefreshFailed: (message) => void events.push({ name: 'tokenRefreshFailed', message }),
      },
      ...auth,
    },
    { site, setup: (app) => tokenRoute(app, () => holder.router!) },
  ).catch(async (error: unknown) => {
    await idp.stop()
    throw error
  })
  holder.router = served.router
  return {
    idp,
    served,
    events,
    async signedIn() {
      const browser = new Browser(served)
      const res = await browser.signIn('idp')
      if (res.status !== 302 || !res.headers.get('location')?.endsWith('/welcome'))
        throw new Error(`sign-in answered ${res.status} ${res.headers.get('location')}`)
      return browser
    },
    async token(browser: Browser, query = '') {
      const res = await browser.jar.fetch(`${served.origin}/token${query}`)
      return { status: res.status, body: (await res.json()) as TokenBody }
    },
    async stop() {
      await served.close()
      await idp.stop()
    },
  }
}

function tokenRoute(app: Express, router: () => AuthRouter): void {
  app.get('/token', (req, res) => {
    const force = req.query.force === '1' ? { refresh: 'force' as const } : {}
    const minValidity = typeof req.query.minValidity === 'string' ? { minValidity: Number(req.query.minValidity) } : {}
    router()
      .getAccessToken(req, 'idp', { ...force, ...minValidity })
      .then(
        (token) => res.status(token ? 200 : 404).json(token ?? {}),
        (error: unknown) =>
          res
            .status(error instanceof AuthError ? error.status : 500)
            .json({ error: error instanceof AuthError ? error.code : String(error) }),
      )
  })
}
