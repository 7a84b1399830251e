import http, { type Server } from 'node:http'
import express, { type Express } from 'express'
import { auth, type AuthOptions, type AuthRouter, type LogEntry } from '../../lib'
import { freePort } from './process'

export const SECRET = 'a-test-secret-that-is-long-enough-1234567890'
export const BASE = 'http://localhost:3000/api/auth'

/** Options for a test service: a fixed secret and URL, and a logger that keeps every entry. */
export function testOptions(overrides: AuthOptions = {}): AuthOptions & { logs: LogEntry[] } {
  const logs: LogEntry[] = []
  return { url: BASE, secret: SECRET, logger: (entry) => logs.push(entry), ...overrides, logs }
}

/** An Express app with the service mounted (at `/api/auth` unless `mount` says otherwise). */
export function makeApp(overrides: AuthOptions = {}, mount: string | null = '/api/auth') {
  const { logs, ...options } = testOptions(overrides)
  const router = auth(options)
  const app = express()
  if (mount === null) app.use(router)
  else app.use(mount, router)
  app.get('/', (_req, res) => {
    res.send('home')
  })
  return { app, router, logs }
}

/** Where a served app will be: a port free on 127.0.0.1, reached as http://localhost:<port>. */
export interface Site {
  port: number
  origin: string
  /** The service's URL there. */
  base: string
}

export async function freeSite(): Promise<Site> {
  const port = await freePort()
  const origin = `http://localhost:${port}`
  return { port, origin, base: `${origin}/api/auth` }
}

export interface Served extends Site {
  logs: LogEntry[]
  /** The router `auth()` made, with its helpers (getSession, requireAuth, revokeSessions). */
  router: AuthRouter
  close(): Promise<void>
}

/**
 * The service on a real port, for flows over HTTP: an Express app with the service at /api/auth
 * (its `url` the site's, unless `overrides` say otherwise) and a /welcome page to come back to.
 * The app is reached as http://localhost, so an identity provider on 127.0.0.1 is another site.
 * `site` when the service's URL had to be known first (to register it at a provider); `setup`
 * configures the app before the service is mounted.
 */
export async function serve(
  overrides: AuthOptions = {},
  { site, setup }: { site?: Site; setup?: (app: Express) => void } = {},
): Promise<Served> {
  const where = site ?? (await freeSite())
  const { logs, ...options } = testOptions({ url: where.base, ...overrides })
  const app = express()
  setup?.(app)
  const router = auth(options)
  app.use('/api/auth', router)
  app.get('/welcome', (_req, res) => {
    res.send('welcome')
  })
  const server = await listenOn(app, where.port)
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  return { ...where, logs, router, close }
}

/**
 * `app` listening on 127.0.0.1:`port`; rejects when it cannot (Express 5's `listen` would call back
 * with the error, and a spec would go on against whatever holds the port).
 */
export function listenOn(app: Express, port: number): Promise<Server> {
  return new Promise<Server>((resolve, reject) => {
    const server = http.createServer(app)
    server.once('error', reject)
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject)
      resolve(server)
    })
  })
}
