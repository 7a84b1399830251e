import { email, oauth2, oidc, type AuthOptions } from '../../lib'
import { freeSite, serve, type Served } from '../support/app'
import { startIdp, type Idp } from '../support/idp'
import { freePort } from '../support/process'
import { startSmtp, type SmtpServer } from '../support/smtp'

/**
 * The services the fuzz runs against, on real ports, with real peers: the oidc-provider test IdP
 * (so that a callback can get all the way to a token request) and a mail server (so that an e-mail
 * link is a real one). Cookie sessions, Express as the jest project maps it.
 */
export interface FuzzService {
  port: number
  /** The site's origin, for the `url` service; for the trustHost one, the origin its ordinary requests name. */
  origin: string
  /** `Host` of an ordinary request (localhost:<port>). */
  host: string
  /** Where POST /signin/<oauth provider> may send the browser: the IdP's authorization endpoint. */
  authorizationEndpoints: string[]
  idp: Idp
  smtp: SmtpServer | null
  served: Served
  stop(): Promise<void>
}

export const FROM = 'auth@example.com'
/** OAuth providers that reach the IdP, one OIDC and one plain OAuth 2 (userinfo), and one whose issuer is down. */
export const OAUTH_PROVIDERS = ['oidc', 'plain', 'offline'] as const

/**
 * `url` set: OIDC and OAuth 2 providers at the test IdP, one at a dead port, and e-mail sign-in.
 * Limits are raised where they would end the fuzz early (each case its own address and IP anyway);
 * bodyTimeout is short so that a body that stops short costs a fraction of a second, not ten.
 */
export function startUrlService(): Promise<FuzzService> {
  return start(false)
}

/** `trustHost: true` and no `url`: the site is whatever Host / X-Forwarded-Host the request names. */
export function startTrustHostService(): Promise<FuzzService> {
  return start(true)
}

/**
 * The app's redirect callback, of a kind apps write: `/via/<encoded URL>` means "go on to that URL".
 * Its answer can name any site; the contract says it is validated again, and the fuzz's
 * callbackUrls include `/via/` forms of every off-site URL to check that it is.
 */
export function followVia({ url }: { url: string }): string {
  const at = url.indexOf('/via/')
  if (at === -1) return url
  try {
    return decodeURIComponent(url.slice(at + 5))
  } catch {
    return url
  }
}

async function start(trustHost: boolean): Promise<FuzzService> {
  const site = await freeSite()
  const deadPort = await freePort()
  const idp = await startIdp({
    clients: [
      {
        client_id: 'app',
        client_secret: 'app-secret',
        redirect_uris: ['oidc', 'plain'].map((id) => `${site.base}/callback/${id}`),
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
  })
  const meta = (await (await fetch(`${idp.issuer}/.well-known/openid-configuration`)).json()) as Record<string, string>
  const smtp = trustHost ? null : await startSmtp()
  const providers: Array<NonNullable<AuthOptions['providers']>[number]> = [
    oidc({ id: 'oidc', issuer: idp.issuer, clientId: 'app', clientSecret: 'app-secret' }),
    oauth2({
      id: 'plain',
      clientId: 'app',
      clientSecret: 'app-secret',
      authorizationUrl: meta.authorization_endpoint!,
      tokenUrl: meta.token_endpoint!,
      userinfoUrl: meta.userinfo_endpoint!,
      scope: 'openid email profile',
    }),
    oidc({ id: 'offline', issuer: `http://127.0.0.1:${deadPort}`, clientId: 'x', clientSecret: 'y' }),
  ]
  // email() refuses to start without `url`: a link built from a request's Host could point anywhere.
  if (smtp) {
    const rateLimits = { addressPerMinute: 1000, addressPerHour: 100_000, ipPerHour: 100_000 }
    providers.push(email({ from: FROM, server: smtp.url, rateLimits }))
  }
  const options: AuthOptions = {
    providers,
    bodyTimeout: 200,
    providerTimeout: 3000,
    // A second language (an empty translation: English texts, French tag), so that every request's
    // Accept-Language is negotiated rather than ignored.
    languages: { fr: {} },
    callbacks: { redirect: followVia },
  }
  const served = await serve(trustHost ? { ...options, url: undefined, trustHost: true } : options, { site })
  return {
    port: served.port,
    origin: served.origin,
    host: `localhost:${served.port}`,
    authorizationEndpoints: [meta.authorization_endpoint!],
    idp,
    smtp,
    served,
    stop: async () => {
      await served.close()
      await smtp?.close()
      await idp.stop()
    },
  }
}
