import { join } from 'node:path'
import { build } from 'esbuild'
import express, { type Express, type Response } from 'express'
import type Redis from 'ioredis'
import { oidc } from '../../lib'
import { requireAccessToken, type AccessTokenLocals } from '../../lib/resource'
import { listenOn, serve, type Served } from './app'
import { startIdp, type Idp } from './idp'
import { freePort } from './process'

/**
 * Three origins on loopback, as a single-page app meets them: the auth service on
 * `http://localhost:A/api/auth` (database sessions in Redis, an OpenID Connect provider at the test
 * IdP on 127.0.0.1, `cors.origins` and `accessTokens` for the two below); the page
 * (spec/e2e/spa-page.jsx, bundled with the service's URL) served by a static server on
 * `http://localhost:B`; and the user's API on `http://localhost:C`, whose `GET /api/me` takes the
 * service's access tokens (`requireAccessToken` on the same Redis) and answers the page with CORS
 * of its own.
 */
export interface SpaSetup {
  /** The service's `url`. */
  service: string
  /** `http://localhost:<port>/`: the page. */
  page: string
  /** `http://localhost:<port>/api`: the API, the audience of its tokens. */
  api: string
  idp: Idp
  stop(): Promise<void>
}

export interface SpaRedis {
  /** The service's client. */
  service: Redis
  /** The API's own client of the same server. */
  api: Redis
  prefix: string
}

export async function startSpa(redis: SpaRedis): Promise<SpaSetup> {
  const [servicePort, pagePort, apiPort] = await Promise.all([freePort(), freePort(), freePort()])
  const service = `http://localhost:${servicePort}/api/auth`
  const pageOrigin = `http://localhost:${pagePort}`
  const api = `http://localhost:${apiPort}/api`
  const idp = await startIdp({
    clients: [
      {
        client_id: 'spa-service',
        client_secret: 'spa-service-secret',
        redirect_uris: [`${service}/callback/oidc`],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
  })
  const started: Array<() => Promise<void>> = [() => idp.stop()]
  const stop = async () => {
    for (const close of started.splice(0).reverse()) await close()
  }
  try {
    const served: Served = await serve(
      {
        url: service,
        providers: [
          oidc({ id: 'oidc', issuer: idp.issuer, clientId: 'spa-service', clientSecret: 'spa-service-secret' }),
        ],
        session: { strategy: 'database' },
        redis: redis.service,
        redisKeyPrefix: redis.prefix,
        cors: { origins: [pageOrigin] },
        accessTokens: { audiences: [api] },
      },
      { site: { port: servicePort, origin: new URL(service).origin, base: service } },
    )
    started.push(() => served.close())
    const script = await bundlePage(service, api)
    started.push(await listen(pagePort, pageApp(script)))
    started.push(await listen(apiPort, apiApp({ service, api, pageOrigin, redis })))
  } catch (error) {
    await stop()
    throw error
  }
  return { service, page: `${pageOrigin}/`, api, idp, stop }
}

/** The page's script: React, next-auth/react and spa-page.jsx, with the two addresses substituted. */
async function bundlePage(service: string, api: string): Promise<string> {
  const result = await build({
    entryPoints: [join(__dirname, '../e2e/spa-page.jsx')],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: 'es2020',
    jsx: 'automatic',
    logLevel: 'silent',
    define: {
      'process.env.NODE_ENV': '"production"',
      'process.env.NEXTAUTH_URL': JSON.stringify(service),
      'process.env.SPA_API_URL': JSON.stringify(api),
      'process.env.NEXTAUTH_URL_INTERNAL': 'undefined',
      'process.env.VERCEL_URL': 'undefined',
      'process.env.AUTH_URL': 'undefined',
    },
  })
  const [output] = result.outputFiles
  if (!output) throw new Error('esbuild produced no bundle for spa-page.jsx')
  return output.text
}

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>SPA</title><link rel="icon" href="data:,"></head>
<body><div id="root"></div><script src="/page.js"></script></body></html>`

/** The static server: the page and its script, nothing else. */
function pageApp(script: string): Express {
  const app = express()
  app.get('/', (_req, res) => {
    res.type('html').send(PAGE)
  })
  app.get('/page.js', (_req, res) => {
    res.type('js').send(script)
  })
  return app
}

/** The user's API: `GET /api/me` behind `requireAccessToken`, readable by the page's origin. */
function apiApp({
  service,
  api,
  pageOrigin,
  redis,
}: {
  service: string
  api: string
  pageOrigin: string
  redis: SpaRedis
}) {
  const app = express()
  // CORS of the API's own: the page's origin may send `Authorization` (no cookies: the token is the credential).
  app.use('/api', (req, res, next) => {
    res.vary('Origin')
    if (req.headers.origin === pageOrigin) res.setHeader('Access-Control-Allow-Origin', pageOrigin)
    if (req.method !== 'OPTIONS') return next()
    res.setHeader('Access-Control-Allow-Methods', 'GET')
    res.setHeader('Access-Control-Allow-Headers', 'Authorization')
    res.sendStatus(204)
  })
  const requireToken = requireAccessToken({
    issuer: service,
    audience: api,
    redis: redis.api,
    redisKeyPrefix: redis.prefix,
  })
  app.get('/api/me', requireToken, (_req, res: Response<unknown, AccessTokenLocals>) => {
    const { sub, client_id } = res.locals.accessToken
    res.json({ sub, client_id })
  })
  return app
}

/** `app` on 127.0.0.1:`port` (reached as localhost); resolves to its close. */
async function listen(port: number, app: Express): Promise<() => Promise<void>> {
  const server = await listenOn(app, port)
  return () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
}
