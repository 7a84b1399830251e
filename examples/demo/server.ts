import type { Server } from 'node:http'
import express from 'express'
import { Redis } from 'ioredis'
import { auth, AuthError, email, oidc, passkey, password, type Callbacks, type VerificationRequest } from '../../lib'
import { buildClientBundle } from './client/bundle'
import { startEmbeddedIdp } from './identity-provider'
import {
  CLIENT_PAGE_CSP,
  DEMO_CSS,
  PAGE_CSP,
  SIGN_OUT_DEVICE_PATH,
  clientPage,
  homePage,
  privatePage,
  withPictures,
  type DevicesView,
} from './pages'
import { demoAccounts } from './account-store'
import { passkeyPageCsp, passkeySection } from './passkeys'
import { demoMfa, secondFactorSection } from './second-factor'
import { rangeUrlForDisplay, readSettings, redisUrlForDisplay, smtpUrlForDisplay } from './settings'
import { waysInSection } from './ways-in'
import { startTelemetry } from './telemetry'

/**
 * The demo behind `npm start`: an Express app with the auth service mounted at the path of
 * SERVICE_AUTH_URL (/api/auth by default), signing in through an OpenID Connect provider (its own
 * embedded one, or OIDC_ISSUER) or with a link by e-mail (through SMTP_URL, or printed to the
 * console), a home page that shows who is signed in and their ways in (linked and unlinked there),
 * two-factor sign-in (an authenticator app, recovery codes, a passkey), a page guarded by requireAuth(), and a page (/client) where the NextAuth.js client library signs
 * in and out and changes the user's name. Accounts live in PostgreSQL (DATABASE_URL), Redis
 * (REDIS_URL) or the demo's memory.
 */
async function main() {
  const settings = readSettings(process.env)
  // OTEL=console or prometheus: OpenTelemetry's SDK, registered before the service is made.
  const telemetry = await startTelemetry(process.env)
  if (telemetry) process.stdout.write(telemetry)
  if (settings.secretIsRandom) {
    process.stderr.write(
      'demo: SERVICE_AUTH_SECRET is not set; using a random secret, so sessions end when the demo restarts\n',
    )
  }
  // The port first: on a busy one the demo says so and exits, before the browser reaches the other program.
  const app = express()
  const server = await listen(app, settings.port)
  const [issuer, clientBundle] = await Promise.all([
    settings.oidc ?? startEmbeddedIdp(settings.idpPort, `${settings.url}/callback/oidc`),
    buildClientBundle(),
  ])
  if (!settings.oidc)
    process.stdout.write(`demo: embedded identity provider at ${issuer.issuer} (user "alice", any password)\n`)

  // With REDIS_URL: one client for the app's lifetime, owned by the app (the package never closes it).
  const redis = settings.redisUrl ? await connectRedis(settings.redisUrl) : null
  const accounts = await demoAccounts(settings, redis)
  // "Sign in with a passkey" on the built-in page (and in the e-mail field's autofill); a
  // signed-in user adds one on the home page. Without REDIS_URL, passkeys live in this process.
  const passkeyProvider = passkey()
  const providers = [
    oidc({
      id: 'oidc',
      name: 'Demo',
      issuer: issuer.issuer,
      clientId: issuer.clientId,
      clientSecret: issuer.clientSecret,
      // The embedded provider knows the demo's sign-out return URL: signing out ends its session
      // too, so that "Sign in with Demo" asks for the password again.
      logout: settings.oidc ? 'local' : 'provider',
    }),
    // The built-in sign-in page shows the e-mail form under the OAuth button by itself.
    settings.smtpUrl
      ? email({ from: settings.emailFrom, server: settings.smtpUrl })
      : email({ from: settings.emailFrom, sendVerificationRequest: printSignInLink }),
    passkeyProvider,
    // E-mail and password (docs/passwords.md): "Create an account" and "Forgot your password?" on
    // the sign-in page; the sign-up and reset links go out through the e-mail provider above.
    password(settings.breachedRangeUrl ? { breached: { url: settings.breachedRangeUrl } } : {}),
  ]
  const authRouter = auth({
    url: settings.url,
    secret: settings.secret,
    ...(redis ? { redis, session: { strategy: 'database' as const } } : {}),
    // Each sign-in's identity resolves to a user, who links and unlinks ways in on the home page.
    accounts: accounts.store,
    callbacks: displayNameCallbacks,
    // A second factor for the users who set one up on the home page; the others sign in as before.
    mfa: demoMfa(passkeyProvider),
    // Only in the demo, and only with its development mail transport: say where the link went.
    ...(settings.smtpUrl ? {} : { languages: { en: { verifyRequest: { message: CONSOLE_LINK_MESSAGE } } } }),
    providers,
  })
  process.stdout.write(
    settings.smtpUrl
      ? `demo: sign-in mails go through ${smtpUrlForDisplay(settings.smtpUrl)} from ${settings.emailFrom}\n`
      : 'demo: SMTP_URL is not set; e-mail sign-in links are printed here (development mail transport), not sent\n',
  )

  // Offline (the specs, a closed network), the public API never answers: say what happens then.
  process.stdout.write(
    settings.breachedRangeUrl
      ? `demo: new passwords are checked against the breached-password range API at ${rangeUrlForDisplay(settings.breachedRangeUrl)}\n`
      : "demo: BREACHED_RANGE_URL is not set; new passwords are checked against Have I Been Pwned's public range API (when it does not answer within 2 s, the password is let through and the service logs that)\n",
  )

  process.stdout.write(
    settings.redisUrl
      ? `demo: sessions, sign-in links and rate limits are kept in Redis at ${redisUrlForDisplay(settings.redisUrl)}\n`
      : 'demo: REDIS_URL is not set; sessions live in encrypted cookies, links and limits in this process\n',
  )
  process.stdout.write(`demo: ${accounts.where}\n`)

  // Mounted at the root, the router serves under the base path of SERVICE_AUTH_URL by itself.
  app.use(authRouter)
  // The embedded provider serves the user's picture over http on 127.0.0.1: its origin is allowed.
  const pictureOrigin = settings.oidc ? null : new URL(issuer.issuer).origin
  /** The signed-in user's devices (listed with database sessions, REDIS_URL, only) and ways in. */
  async function signedInParts(req: express.Request, res: express.Response) {
    const record = await authRouter.getSessionRecord(req)
    const csrfToken = record && authRouter.getCsrfToken(req, res)
    if (!record || !csrfToken) return null
    const [sessions, ways, passkeys, factors] = await Promise.all([
      redis ? authRouter.listSessions(record.userId) : null,
      authRouter.listAccounts(record.userId),
      authRouter.listPasskeys(record.userId),
      authRouter.listFactors(record.userId),
    ])
    const devices: DevicesView = { csrfToken, sessions, current: record.handle }
    return {
      devices,
      waysIn: waysInSection(settings.basePath, { csrfToken, ways, providers }),
      // The passkeys, and the button that adds one (the service's own script).
      passkeys: passkeySection(settings.basePath, passkeys),
      // How this session was made (aal, amr), the user's second factors, and their setup page.
      secondFactor: secondFactorSection(settings.basePath, record, factors),
    }
  }
  app.get('/', (req, res, next) => {
    Promise.all([authRouter.getSession(req), signedInParts(req, res)])
      .then(([session, parts]) => {
        const csp = withPictures(parts ? passkeyPageCsp(settings.url) : PAGE_CSP, pictureOrigin)
        // Its forms carry the CSRF token: a page for this browser alone, never kept by a cache.
        sendPage(
          res.set('Cache-Control', 'private, no-store'),
          homePage(settings.basePath, session, pictureOrigin, parts),
          csp,
        )
      })
      .catch(next)
  })
  // "Sign out this one": a form of the home page, with the service's CSRF token; only the signed-in
  // user's own sessions can be named (revokeSession checks the handle against the user's list).
  app.post(SIGN_OUT_DEVICE_PATH, express.urlencoded({ extended: false, limit: '2kb' }), (req, res, next) => {
    const { csrfToken, handle } = (req.body ?? {}) as Record<string, unknown>
    if (!authRouter.verifyCsrfToken(req, csrfToken)) {
      res.status(403).type('text').send('This form has expired: go back, reload the page and try again.')
      return
    }
    authRouter
      .getSessionRecord(req)
      .then(async (record) => {
        if (record && redis && typeof handle === 'string') await authRouter.revokeSession(record.userId, handle)
        res.redirect(303, '/')
      })
      .catch(next)
  })
  app.get('/demo.css', (_req, res) => {
    res.type('css').set('X-Content-Type-Options', 'nosniff').send(DEMO_CSS)
  })
  app.get('/private', authRouter.requireAuth(), (_req, res) => {
    sendPage(res, privatePage(settings.basePath, res.locals.session))
  })
  app.get('/client', (_req, res) =>
    sendPage(res, clientPage(settings.basePath, pictureOrigin), withPictures(CLIENT_PAGE_CSP, pictureOrigin)),
  )
  app.get('/client.js', (_req, res) => {
    res.type('js').set('X-Content-Type-Options', 'nosniff').send(clientBundle)
  })

  // The service's own routes answer an outage of Redis with their 503; the demo's pages, which ask
  // it for the session too, say the same in words rather than with Express's default error page.
  app.use((error: unknown, _req: express.Request, res: express.Response, next: express.NextFunction) => {
    if (!(error instanceof AuthError) || error.code !== 'ServiceUnavailable') return next(error)
    res.status(503).set('Retry-After', '5').type('text')
    res.send('The session store (Redis) does not answer; this page works again once it does. Try again in a moment.')
  })

  process.stdout.write(`demo: listening on http://localhost:${settings.port} (auth service at ${settings.url})\n`)
  const stop = () =>
    server.close(() => {
      void redis?.quit()
      process.exit(0)
    })
  process.once('SIGTERM', stop)
  process.once('SIGINT', stop)
}

/**
 * The app on `port`, or a refusal naming the port. Express 5 hands a listen error to the callback
 * and Express 4 emits it on the server: waiting for 'listening' or 'error' works on both.
 */
function listen(app: express.Express, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port)
    server.once('listening', () => resolve(server))
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'EADDRINUSE'
          ? new Error(`port ${port} in use: another program listens there; stop it, or set PORT to a free port`)
          : error,
      )
    })
  })
}

/** Milliseconds the demo waits for Redis's answer to its first PING. */
const REDIS_CHECK_MS = 3000

/**
 * REDIS_URL's server, checked with a PING within 3 s before the demo says sessions are kept there.
 * An unreachable one stops the demo with its address (never its password) and the cause.
 */
async function connectRedis(url: string): Promise<Redis> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null })
  let cause = 'no answer'
  redis.on('error', (error: NodeJS.ErrnoException) => {
    cause = error.code ?? 'error'
  })
  const timer = new Promise<never>((_resolve, reject) => {
    setTimeout(() => reject(new Error('timeout')), REDIS_CHECK_MS).unref()
  })
  try {
    await Promise.race([redis.connect().then(() => redis.ping()), timer])
  } catch {
    redis.disconnect()
    throw new Error(
      `REDIS_URL: Redis at ${redisUrlForDisplay(url)} did not answer PING within ${REDIS_CHECK_MS} ms (${cause}); start it, or unset REDIS_URL to keep sessions in cookies`,
    )
  }
  // From here on, reconnect as usual: the auth service logs an outage once; ioredis would repeat it per retry.
  redis.options.retryStrategy = (times) => Math.min(times * 200, 2000)
  redis.options.maxRetriesPerRequest = 20
  redis.on('error', () => undefined)
  return redis
}

function sendPage(res: express.Response, html: string, csp = PAGE_CSP): void {
  res.type('html').set({ 'Content-Security-Policy': csp, 'X-Content-Type-Options': 'nosniff' }).send(html)
}

/**
 * The client page's "Change name" (`update({ name })`, POST /session): the update callback keeps a
 * display name, and only that, never whatever else the browser sends; the session callback shows
 * it in place of the provider's name, on the client and on the demo's own pages alike.
 */
const displayNameCallbacks: Callbacks = {
  update: ({ record, newData }) => {
    const name = (newData as { name?: unknown } | null)?.name
    if (typeof name !== 'string') return undefined
    const trimmed = name.trim()
    // One line, not too long: it goes into pages (escaped) and into the session cookie.
    if (trimmed === '' || trimmed.length > 80 || /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(trimmed)) return undefined
    return { ...record.data, displayName: trimmed }
  },
  session: ({ session, record }) => {
    const displayName = record.data?.displayName
    return typeof displayName === 'string' ? { ...session, user: { ...session.user, name: displayName } } : session
  },
}

/**
 * The demo's development mail transport, used when SMTP_URL is not set: it prints the sign-in link
 * to the console instead of mailing it, so the e-mail sign-in works on any machine. That is fine
 * for a demo on your own computer only. A real app must never log sign-in links (or anything else
 * from `url`): whoever reads the log could sign in as that user. Send them with `server` or
 * `transport`, or mail them yourself in `sendVerificationRequest`.
 */
// The page is the same whether a link was printed or the address's limit (one link a minute, five
// an hour) sent none, as it is for a real mail: the console tells them apart.
const CONSOLE_LINK_MESSAGE =
  'No mail is sent: this demo has no SMTP_URL. Its console shows the sign-in link, or a line saying that none was sent (an address gets at most one link a minute and five an hour).'

function printSignInLink({ identifier, url, kind }: VerificationRequest): void {
  const what = {
    signIn: 'sign-in link',
    passwordSignUp: 'sign-up link',
    passwordSignUpExists: 'note that someone tried to sign up with an address that has an account; sign-in page',
    passwordReset: 'password reset link',
  }[kind ?? 'signIn']
  process.stdout.write(`demo (development mail transport, nothing was sent): ${what} for ${identifier}: ${url}\n`)
}

main().catch((error: unknown) => {
  process.stderr.write(`demo: ${error instanceof Error ? error.message : String(error)}\n`)
  process.exit(1)
})
