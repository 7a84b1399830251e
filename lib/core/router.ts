import { Router, type NextFunction, type Request, type Response } from 'express'
import { DEFAULT_BASE_PATH, trimSlashes } from '../infra/urls/base-url'
import { AuthError, isAuthError } from '../infra/errors'
import { foreignHost, hostsOf, serviceFor, untrustedForwarding } from '../infra/http/base'
import { readBody } from '../infra/http/body'
import { readCookies } from '../infra/http/cookies'
import { errorAnswer, sendError } from '../infra/http/error-response'
import { relativePath, suffixMount } from '../infra/http/mount'
import { outsideText } from '../infra/logger'
import { crossSiteRefused } from '../infra/csrf/origin'
import { clientKey } from '../infra/http/client-key'
import { CorsPolicy } from '../infra/http/cors'
import { Context } from './context'
import type { Services } from './services'
import { invalidCsrf, type CsrfFailure } from './csrf-failure'
import type { Feature, Route } from './feature'
import { routeTable, type Found, type RouteTable } from './route-table'
import type { RouteSpan } from '../infra/telemetry'

const JSON_MODE_HEADER = 'x-auth-return-redirect'

/**
 * The Express router `auth()` returns: one middleware that dispatches on the route table
 * (./route-table.ts) and enforces each route's policy (./feature.ts `Route`).
 */
export function createRouter(svc: Services, features: readonly Feature[]): Router {
  const router = Router()
  const basePath = svc.config.base?.path ?? DEFAULT_BASE_PATH
  const checkSetup = setupChecks(svc, basePath)
  const table = routeTable(features)
  const { cors, trustedOrigins } = svc.config
  const policy = cors && new CorsPolicy(cors.origins, trustedOrigins)
  router.use((req: Request, res: Response, next: NextFunction) => {
    dispatch(svc, table, policy, basePath, req, res, next, checkSetup)
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
  table: RouteTable,
  cors: CorsPolicy | null,
  basePath: string,
  req: Request,
  res: Response,
  next: NextFunction,
  checkSetup: (req: Request) => void,
): Promise<void> {
  const path = relativePath(req, basePath)
  if (path === null) return next()
  checkSetup(req)
  const found = table(trimSlashes(path))
  if (!found) throw new AuthError('NotFound', 'no such route')
  // Without a tracer provider (the hot path's usual case), one check and nothing built.
  const span = svc.telemetry.tracing() ? routeSpan(svc, found, basePath, req.method) : null
  if (span === null) return dispatchRoute(svc, found, cors, req, res, null)
  try {
    await span.run(() => dispatchRoute(svc, found, cors, req, res, span))
    span.end(res.statusCode)
  } catch (error) {
    span.end(isAuthError(error) ? error.status : 500, error)
    throw error
  }
}

/**
 * A route's span (lib/infra/telemetry): `auth.session`, `auth.callback`, `auth.mfa.verify`, …, with
 * the route's template, and a provider only when the configuration has it (a path can say anything).
 */
function routeSpan(svc: Services, found: Found, basePath: string, method: string): RouteSpan | null {
  const { key, providerId } = found
  return svc.telemetry.route(`auth.${key.replace('/:provider', '').replaceAll('/', '.')}`, {
    'http.route': `${basePath}/${key}`,
    'http.request.method': method === 'HEAD' ? 'GET' : method,
    ...(providerId && svc.providerIds.has(providerId) ? { 'auth.provider': providerId } : {}),
  })
}

/** The route `found`'s policy and handler (./feature.ts `Route`), with `span` its request's span. */
async function dispatchRoute(
  svc: Services,
  found: Found,
  cors: CorsPolicy | null,
  req: Request,
  res: Response,
  span: RouteSpan | null,
): Promise<void> {
  const { key, route, providerId } = found
  const method = req.method === 'HEAD' ? 'GET' : req.method
  // CORS only where a route says so, and only with `cors` set: unset, this costs one comparison.
  let trusted = svc.config.trustedOrigins
  if (cors !== null && route.cors !== undefined) {
    if (req.method === 'OPTIONS') return cors.preflight(req, res, route.cors)
    if (method === route.cors && cors.answer(req, res)) trusted = cors.trusted
  }
  const handler = method === 'GET' || method === 'POST' ? route[method] : undefined
  if (!handler) {
    const allow = [route.GET ? 'GET, HEAD' : '', route.POST ? 'POST' : ''].filter(Boolean).join(', ')
    return sendError(req, res, new AuthError('MethodNotAllowed', 'method not allowed'), {
      ...errorAnswer(svc.languages, svc.config.base?.href, req, res, svc.config.theme),
      headers: { Allow: allow },
    })
  }
  if (providerId === null) throw new AuthError('NotFound', 'no such route')
  const { base, cookieSet } = serviceFor(svc.config, req)
  const ownBody = route.bodyLimit === 'handler'
  const limit = Math.min(typeof route.bodyLimit === 'number' ? route.bodyLimit : Infinity, svc.config.bodyLimit)
  const body = method === 'POST' && !ownBody ? await readBody(req, limit, svc.config.bodyTimeout) : {}
  const json = body.json === 'true' || body.json === true || req.headers[JSON_MODE_HEADER] === '1'
  const ctx = new Context(req, res, svc, base, cookieSet, readCookies(req), providerId, body, json)
  ctx.span = span
  try {
    const refusal = policyRefusal(ctx, key, route, method, trusted)
    if (refusal) return await refusal(ctx)
    if (route.rateLimit && counted(ctx, route.rateLimit, method)) await countRequest(ctx)
    await handler(ctx)
  } catch (error) {
    // A provider's sign-in or callback that threw (a rate limit, a store outage, a refusal mid-way)
    // is a sign-in that failed, as one sent to the error page is (Context.redirectToError).
    // An id nobody configured is no sign-in (a 404): neither recorded nor counted.
    if (providerId && svc.providerIds.has(providerId) && isAuthError(error) && !res.headersSent)
      ctx.audit({ event: 'signin', userId: null, provider: providerId, failure: error.code })
    // The client asked for `{"url"}` (the NextAuth client's signIn and signOut): it gets the error
    // page's URL with the error's status, not a page it cannot read as JSON.
    if (!json || !isAuthError(error) || error.code === 'Configuration' || res.headersSent) throw error
    // Not redirectToError: the failure is recorded above, once.
    ctx.redirect(ctx.serviceUrl('/error', { error: error.code }), error.status)
  }
}

/**
 * The route's policy before its handler: the origin check (lib/infra/csrf/origin.ts), then a POST's
 * CSRF token; the answer to give when one fails, or null. Both are MACs and headers, no I/O: a
 * refused request calls nobody and is not counted, so it neither uses up a client's allowance nor
 * leaves a counter behind. A route exempt from the token is counted before its handler. `trusted`:
 * the origins the check lets through, `trustedOrigins`, and on a CORS route for an allowed origin
 * `cors.origins` too (whose requests still need the CSRF token).
 */
function policyRefusal(
  ctx: Context,
  key: string,
  route: Route,
  method: string,
  trusted: ReadonlySet<string>,
): CsrfFailure | null {
  const { svc, req } = ctx
  const crossSite = route.crossSite ?? 'post'
  const checked = crossSite === 'all' || (crossSite === 'post' && method === 'POST')
  const failure = route.csrf === 'exempt' ? invalidCsrf.missing : (route.csrf ?? invalidCsrf.badRequest)
  if (checked && crossSiteRefused(req.headers, ctx.base.origin, trusted)) {
    svc.log('warn', 'request.cross_site', 'a request from another site was refused; nothing was changed', {
      route: key,
      fetchSite: outsideText(String(req.headers['sec-fetch-site'] ?? ''), 32),
      origin: outsideText(String(req.headers.origin ?? ''), 200),
    })
    return route.crossSiteAnswer ?? failure
  }
  if (method !== 'POST' || route.csrf === 'exempt') return null
  if (svc.csrf.verify(ctx.cookies[ctx.cookieSet.csrfToken.name], ctx.body.csrfToken)) return null
  svc.log('warn', 'csrf.invalid', 'a POST without a valid CSRF token was refused; nothing was changed', { route: key })
  return failure
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
 * Which requests of a limited route count: `'all'`, or `'flow'`: every POST (each can make the
 * service send mail or call a provider), and a GET only when it carries a flow cookie (only then can
 * it reach a provider). So another site cannot use up a visitor's allowance with `<img>` tags
 * pointing at a callback: SameSite=Lax keeps the flow cookie off such requests.
 */
function counted(ctx: Context, limit: 'all' | 'flow', method: string): boolean {
  if (limit === 'all' || method === 'POST') return true
  const prefix = `${ctx.cookieSet.flow.name}.`
  return Object.keys(ctx.cookies).some((name) => name.startsWith(prefix))
}

/** Counts one request of a limited route (`requestRateLimit`) for this client IP; beyond it, 429 with Retry-After. */
async function countRequest(ctx: Context): Promise<void> {
  const wait = await ctx.svc.requestLimiter.consume(clientKey(ctx.req.ip))
  if (wait === null) return
  ctx.svc.telemetry.add('auth.ratelimit.refusals', { 'auth.limit': 'requests' })
  ctx.svc.log('debug', 'request.rate_limited', 'a client made too many sign-in requests', { retryAfter: wait })
  ctx.res.setHeader('Retry-After', String(wait))
  throw new AuthError('TooManyRequests', 'too many sign-in requests from this client')
}
