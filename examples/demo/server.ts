import express from 'express'
import Redis from 'ioredis'
import { auth, email, oidc, type Session, type VerificationRequest } from '../../lib'
import { startEmbeddedIdp } from './identity-provider'
import { homePage, privatePage } from './pages'
import { readSettings, redisUrlForDisplay, smtpUrlForDisplay } from './settings'

/**
 * The demo behind `npm start`: an Express app with the auth service mounted at the path of
 * SERVICE_AUTH_URL (/api/auth by default), signing in through an OpenID Connect provider (its own
 * embedded one, or OIDC_ISSUER) or with a link by e-mail (through SMTP_URL, or printed to the
 * console), a home page that shows who is signed in, and a page guarded by requireAuth().
 */
async function main() {
  const settings = readSettings(process.env)
  if (settings.secretIsRandom) {
    process.stderr.write(
      'demo: SERVICE_AUTH_SECRET is not set; using a random secret, so sessions end when the demo restarts\n',
    )
  }
  const issuer = settings.oidc ?? (await startEmbeddedIdp(settings.idpPort, `${settings.url}/callback/oidc`))
  if (!settings.oidc)
    process.stdout.write(`demo: embedded identity provider at ${issuer.issuer} (user "alice", any password)\n`)

  // With REDIS_URL: one client for the app's lifetime, owned by the app (the package never closes it).
  const redis = settings.redisUrl ? new Redis(settings.redisUrl) : null
  redis?.on('error', () => undefined) // the auth service logs an outage once; ioredis would repeat it per retry
  const authRouter = auth({
    url: settings.url,
    secret: settings.secret,
    ...(redis ? { redis, session: { strategy: 'database' as const } } : {}),
    providers: [
      oidc({
        id: 'oidc',
        name: 'Demo',
        issuer: issuer.issuer,
        clientId: issuer.clientId,
        clientSecret: issuer.clientSecret,
      }),
      // The built-in sign-in page shows the e-mail form under the OAuth button by itself.
      settings.smtpUrl
        ? email({ from: settings.emailFrom, server: settings.smtpUrl })
        : email({ from: settings.emailFrom, sendVerificationRequest: printSignInLink }),
    ],
  })
  process.stdout.write(
    settings.smtpUrl
      ? `demo: sign-in mails go through ${smtpUrlForDisplay(settings.smtpUrl)} from ${settings.emailFrom}\n`
      : 'demo: SMTP_URL is not set; e-mail sign-in links are printed here (development mail transport), not sent\n',
  )

  process.stdout.write(
    settings.redisUrl
      ? `demo: sessions, sign-in links and rate limits are kept in Redis at ${redisUrlForDisplay(settings.redisUrl)}\n`
      : 'demo: REDIS_URL is not set; sessions live in encrypted cookies, links and limits in this process\n',
  )

  const app = express()
  // Mounted at the root, the router serves under the base path of SERVICE_AUTH_URL by itself.
  app.use(authRouter)
  app.get('/', (req, res, next) => {
    authRouter.getSession(req).then((session) => res.type('html').send(homePage(settings.basePath, session)), next)
  })
  app.get('/private', authRouter.requireAuth(), (_req, res) => {
    res.type('html').send(privatePage(settings.basePath, res.locals.session as Session))
  })

  const server = app.listen(settings.port, () => {
    process.stdout.write(`demo: listening on http://localhost:${settings.port} (auth service at ${settings.url})\n`)
  })
  const stop = () =>
    server.close(() => {
      void redis?.quit()
      process.exit(0)
    })
  process.once('SIGTERM', stop)
  process.once('SIGINT', stop)
}

/**
 * The demo's development mail transport, used when SMTP_URL is not set: it prints the sign-in link
 * to the console instead of mailing it, so the e-mail sign-in works on any machine. That is fine
 * for a demo on your own computer only. A real app must never log sign-in links (or anything else
 * from `url`): whoever reads the log could sign in as that user. Send them with `server` or
 * `transport`, or mail them yourself in `sendVerificationRequest`.
 */
function printSignInLink({ identifier, url }: VerificationRequest): void {
  process.stdout.write(`demo (development mail transport, nothing was sent): sign-in link for ${identifier}: ${url}\n`)
}

main().catch((error: unknown) => {
  process.stderr.write(`demo: ${error instanceof Error ? error.message : String(error)}\n`)
  process.exit(1)
})
