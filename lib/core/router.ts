import { Router, type NextFunction, type Request, type Response } from 'express'
import { DEFAULT_BASE_PATH, trimSlashes } from '../infra/urls/base-url'
import { AuthError, isAuthError } from '../infra/errors'
import { foreignHost, hostsOf, serviceFor, untrustedForwarding } from '../infra/http/base'
import { readBody } from '../infra/http/body'
import { readCookies } from '../infra/http/cookies'
import { errorAnswer, sendError } from '../infra/http/error-response'
import { relativePath, suffixMount } from '../infra/http/mount'
import { Context, type Handler } from './context'
import { outsideText } from '../infra/logger'
import type { Services } from './services'
import { backchannelLogout } from '../features/oidc-logout/backchannel-route'
import { providerCallback } from './routes/callback'
import { clientLog } from './routes/client-log'
import { csrfTokenJson } from './routes/csrf'
import { invalidCsrf, type CsrfFailure } from './csrf-failure'
import { crossSiteRefused } from '../infra/csrf/origin'
import { clientKey } from '../infra/http/client-key'
import { errorPage } from './routes/error'
import { providersJson } from './routes/providers'
import { getSession } from './routes/session'
import { updateSession } from './routes/session-update'
import { signInPage } from './routes/signin-page'
import { signInWithProvider } from './routes/signin-provider'
import { signOut } from './routes/signout'
import { signOutCallback } from '../features/oidc-logout/signout-callback'
import { signOutPage } from './routes/signout-page'
import { stylesheet } from './routes/stylesheet'
import { verifyRequest } from '../features/email/verify-request'
import { webauthnOptions } from '../features/passkey/options-route'
import { passkeyScript } from '../features/passkey/script'

interface Route {
  readonly GET?: Handler
  readonly POST?: Handler
  /**
   * Every POST checks the CSRF token from its body, and this is its answer when the check fails.
   * EXEMPT marks the only routes that skip the check, each with its reason.
   */
  readonly csrf?: CsrfFailure | typeof EXEMPT
  /** A smaller body limit than `bodyLimit`, for a route that needs little. */
  readonly bodyLimit?: number
  /** Counted against `requestRateLimit` per client IP: the routes that send mail or call providers. */
  readonly limited?: true
  /** The handler reads the body itself (back-channel logout answers every bad body with its own 400). */
  readonly ownBody?: true
}

const EXEMPT = 'exempt'

/**
 * The table of contents: every route of the service, relative to the base path. A `:provider`
 * route matches `<name>/<provider id>` when no literal route has that path.
 */
const ROUTES: ReadonlyMap<string, Route> = new Map(
  Object.entries({
    csrf: { GET: csrfTokenJson },
    providers: { GET: providersJson },
    session: { GET: getSession, POST: updateSession, csrf: invalidCsrf.badRequest },
    signin: { GET: signInPage },
    'signin/:provider': { POST: signInWithProvider, csrf: invalidCsrf.backTo('/signin'), limited: true },
    // An OAuth provider's redirect carries no CSRF token: `state` and the flow cookie bind it instead.
    // The e-mail link's POST checks its own token, because its answer to a bad one is the link itself;
    // a passkey's answer checks its own too (lib/features/passkey/callback.ts).
    'callback/:provider': { GET: providerCallback, POST: providerCallback, csrf: EXEMPT, limited: true },
    signout: { GET: signOutPage, POST: signOut, csrf: invalidCsrf.backTo('/signout') },
    // The provider sends the browser back after its own sign-out (`logout: 'provider'`): `state` binds it.
    'signout-callback/:provider': { GET: signOutCallback },
    'verify-request': { GET: verifyRequest },
    error: { GET: errorPage },
    'assets/style.css': { GET: stylesheet },
    // A passkey ceremony's options: a GET that keeps a challenge, so it is counted like a sign-in.
    'webauthn-options/:provider': { GET: webauthnOptions, limited: true },
    // The sign-in page's only script, allowed by its CSP only when passkey() is configured.
    'assets/passkey.js': { GET: passkeyScript },
    // The v4 client's log beacon carries no authority and changes no state, so it needs no token.
    // An entry is a level, a code and a short message: a few hundred bytes.
    _log: { POST: clientLog, csrf: EXEMPT, bodyLimit: 4096 },
    // An identity provider's server posts a signed logout token: no browser, so no cookie and no
    // CSRF token; the token's signature, issuer, audience and unused jti authorize it
    // (docs/security.md). Not counted: a provider may end many sessions at once, and a made-up
    // token costs no call to the provider (keys are fetched again at most every 30 s).
    'backchannel-logout/:provider': { GET: backchannelLogout, POST: backchannelLogout, csrf: EXEMPT, ownBody: true },
  } satisfies Record<string, Route>),
)

const JSON_MODE_HEADER = 'x-auth-return-redirect'

/** The Express router `auth()` returns: one middleware that dispatches on the table above. */
export function createRouter(svc: Services): Router {
  const router = Router()
  const basePath = svc.config.base?.path ?? DEFAULT_BASE_PATH
  const checkSetup = setupChecks(svc, basePath)
  router.use((req: Request, res: Response, next: NextFunction) => {
    dispatch(svc, basePath, req, res, next, checkSetup)
      .catch((err: unknown) => {
        if (!isAuthError(err)) return next(err)
        // An app's code (a callback, a store) may throw it too: its text is cut and escaped like any outside text.
        if (err.code === 'Configuration') svc.log('error', 'request.invalid', outsideText(err.message, 1000))
        sendError(req, res, err, errorAnswer(svc.languages, svc.config.base?.href, req, res, svc.config.theme))
      })
      .catch(next)
  })
  return router
}

async function dispatch(
  svc: Services,
  basePath: string,
  req: Request,
  res: Response,
  next: NextFunction,
  checkSetup: (req: Request) => void,
): Promise<void> {
  const path = relativePath(req, basePath)
  if (path === null) return next()
  checkSetup(req)
  const literal = trimSlashes(path)
  const segments = literal.split('/')
  const key = ROUTES.has(literal) || segments.length !== 2 ? literal : `${segments[0]}/:provider`
  const route = ROUTES.get(key)
  if (!route) throw new AuthError('NotFound', 'no such route')
  const method = req.method === 'HEAD' ? 'GET' : req.method
  const handler = method === 'GET' || method === 'POST' ? route[method] : undefined
  if (!handler) {
    const allow = [route.GET ? 'GET, HEAD' : '', route.POST ? 'POST' : ''].filter(Boolean).join(', ')
    return sendError(req, res, new AuthError('MethodNotAllowed', 'method not allowed'), {
      ...errorAnswer(svc.languages, svc.config.base?.href, req, res, svc.config.theme),
      headers: { Allow: allow },
    })
  }
  const { base, cookieSet } = serviceFor(svc.config, req)
  const limit = Math.min(route.bodyLimit ?? Infinity, svc.config.bodyLimit)
  const body = method === 'POST' && !route.ownBody ? await readBody(req, limit, svc.config.bodyTimeout) : {}
  const provider = key.endsWith('/:provider') ? decodeSegment(segments[1]!) : undefined
  const json = body.json === 'true' || body.json === true || req.headers[JSON_MODE_HEADER] === '1'
  const ctx = new Context(req, res, svc, base, cookieSet, readCookies(req), provider, body, json)
  try {
    if (method === 'POST' && refusedAsCrossSite(ctx, key)) {
      svc.log('warn', 'request.cross_site', 'a POST from another site was refused; nothing was changed', {
        route: key,
        fetchSite: outsideText(String(req.headers['sec-fetch-site'] ?? ''), 32),
        origin: outsideText(String(req.headers.origin ?? ''), 200),
      })
      if (route.csrf === EXEMPT) throw new AuthError('MissingCSRF', 'a POST from another site was refused')
      return await (route.csrf ?? invalidCsrf.badRequest)(ctx)
    }
    if (
      method === 'POST' &&
      route.csrf !== EXEMPT &&
      !svc.csrf.verify(ctx.cookies[ctx.cookieSet.csrfToken.name], body.csrfToken)
    ) {
      svc.log('warn', 'csrf.invalid', 'a POST without a valid CSRF token was refused; nothing was changed', {
        route: key,
      })
      return await (route.csrf ?? invalidCsrf.badRequest)(ctx)
    }
    // After the origin check and the token (a MAC, no I/O): a refused request calls nobody and is
    // not counted, so it neither uses up a client's allowance nor leaves a counter behind. A route
    // exempt from the token (the callbacks, the e-mail link's own token) is counted before its handler.
    if (route.limited && counted(ctx, method)) await countRequest(ctx)
    await handler(ctx)
  } catch (error) {
    // The client asked for `{"url"}` (the NextAuth client's signIn and signOut): it gets the error
    // page's URL with the error's status, not a page it cannot read as JSON.
    if (!json || !isAuthError(error) || error.code === 'Configuration' || res.headersSent) throw error
    ctx.redirectToError(error.code, error.status)
  }
}

/**
 * Mistakes in how the app is deployed that only a request shows, each logged once per router (so
 * once per process), never per request: each warning names its cause and its fix.
 */
function setupChecks(svc: Services, basePath: string): (req: Request) => void {
  const warned = new Set<'proxy' | 'host' | 'mount'>()
  const base = svc.config.base
  const hosts = base && hostsOf(base)
  const warn = (cause: 'proxy' | 'host' | 'mount', message: string, fields?: Record<string, unknown>) => {
    warned.add(cause)
    svc.log('warn', 'config.warning', message, fields)
  }
  return (req) => {
    if (warned.size === 3) return
    if (!warned.has('mount')) {
      const mount = suffixMount(req, basePath)
      if (mount === null) warned.add('mount')
      else
        warn(
          'mount',
          `the router is mounted at "${mount}", a suffix of the base path "${basePath}": requireAuth() and the pages redirect to "${basePath}/…" (from \`url\`), which the app must serve, through a proxy that strips the prefix; otherwise mount it at "${basePath}"`,
        )
    }
    if (!warned.has('proxy') && untrustedForwarding(req))
      warn(
        'proxy',
        "requests carry X-Forwarded-For but Express does not trust their sender, so every user has the proxy's address and shares one rate limit: set app.set('trust proxy', …) to your proxy (see docs/getting-started.md, behind a proxy)",
      )
    const host = hosts && !warned.has('host') ? foreignHost(hosts, req) : null
    if (base && host !== null)
      warn(
        'host',
        `a request was sent to host "${host}" but \`url\` (or SERVICE_AUTH_URL) is ${base.origin}: the pages' links and forms go there; set \`url\` to the address users reach`,
        { host },
      )
  }
}

/**
 * Every POST passes the origin check (lib/infra/csrf/origin.ts) but an OAuth provider's callback (the
 * e-mail link's confirm step and a passkey's answer do not return from another site: a provider
 * may post its answer, `response_mode=form_post`, and `state` with the flow cookie binds it) and
 * back-channel logout (the provider's server posts it, its signed token authorizes it).
 */
function refusedAsCrossSite(ctx: Context, key: string): boolean {
  const { svc } = ctx
  if (key === 'callback/:provider' && svc.oauth.get(ctx.providerId ?? '')) return false
  // A provider's server, not a browser: it may send any Origin, and the logout token authorizes it.
  if (key === 'backchannel-logout/:provider') return false
  return crossSiteRefused(ctx.req.headers, ctx.base.origin, svc.config.trustedOrigins)
}

/**
 * Which requests of a limited route count: every POST (each can make the service send mail or call
 * a provider), and a callback GET only when it carries a flow cookie (only then can it reach a
 * provider). So another site cannot use up a visitor's allowance with `<img>` tags pointing at a
 * callback: SameSite=Lax keeps the flow cookie off such requests.
 */
function counted(ctx: Context, method: string): boolean {
  const { passkey } = ctx.svc
  // Every POST; and a passkey's options GET, which keeps a challenge on the server.
  if (method === 'POST' || (passkey !== null && ctx.providerId === passkey.provider.id)) return true
  const prefix = `${ctx.cookieSet.flow.name}.`
  return Object.keys(ctx.cookies).some((name) => name.startsWith(prefix))
}

/** Counts one sign-in request for this client IP; beyond the limit, 429 with Retry-After. */
async function countRequest(ctx: Context): Promise<void> {
  const wait = await ctx.svc.requestLimiter.consume(clientKey(ctx.req.ip))
  if (wait === null) return
  ctx.svc.log('debug', 'request.rate_limited', 'a client made too many sign-in requests', { retryAfter: wait })
  ctx.res.setHeader('Retry-After', String(wait))
  throw new AuthError('TooManyRequests', 'too many sign-in requests from this client')
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    throw new AuthError('NotFound', 'no such route')
  }
}
