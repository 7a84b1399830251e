import { AuthError } from '../infra/errors'
import { sendJson } from '../infra/http/reply'
import type { Context } from './context'
import { invalidCsrf } from './csrf-failure'
import type { Feature, Route } from './feature'
import { CORE_ROUTES } from './routes'

/** A request's route: its key as logs name it (`callback/:provider`), and the provider segment. */
export interface Found {
  readonly key: string
  readonly route: Route
  /** The `:provider` segment, decoded; null when it does not decode (the router answers 404 once the method is allowed). */
  readonly providerId: string | null | undefined
}

export type RouteTable = (path: string) => Found | null

/** The routes every provider has; each provider's feature declares them for its own providers. */
type ProviderRoute = 'signin' | 'callback'

/** `POST /signin/:provider` for an id no provider has: `{"url"}` with 404 for a client that asked for JSON. */
async function unknownSignIn(ctx: Context): Promise<void> {
  if (ctx.jsonMode)
    return sendJson(ctx.res, 404, JSON.stringify({ url: ctx.serviceUrl('/signin', { error: 'Signin' }) }), true)
  throw new AuthError('NotFound', 'no such provider')
}

const noSuchProvider = () => {
  throw new AuthError('NotFound', 'no such provider')
}

/** What an id no provider has meets: the policy of the route it asked for, then 404. */
const UNKNOWN: Readonly<Record<ProviderRoute, Route>> = {
  signin: { POST: unknownSignIn, csrf: invalidCsrf.backTo('/signin'), rateLimit: 'flow', cors: 'POST' },
  callback: { GET: noSuchProvider, POST: noSuchProvider, csrf: 'exempt', rateLimit: 'flow' },
}

/**
 * The table of contents: the core's routes and every feature's, relative to the base path. A
 * `:provider` route matches `<name>/<provider id>` when no literal route has that path; `signin/…`
 * and `callback/…` are the route of the feature whose provider it names.
 */
export function routeTable(features: readonly Feature[]): RouteTable {
  const routes = new Map<string, Route>(Object.entries(CORE_ROUTES))
  const byProvider = new Map<string, Route>()
  const starts = features.flatMap((feature) => (feature.startSignIn ? [feature.startSignIn] : []))
  for (const feature of features) {
    for (const [key, route] of Object.entries(feature.routes ?? {})) {
      if (routes.has(key)) throw new Error(`feature ${feature.name}: the route ${key} is taken`)
      routes.set(key, route)
    }
    const providers = feature.providers
    for (const id of providers?.ids ?? []) {
      if (providers?.signIn) byProvider.set(`signin/${id}`, withStarts(providers.signIn, starts))
      if (providers?.callback) byProvider.set(`callback/${id}`, providers.callback)
    }
  }
  return (literal) => {
    const route = routes.get(literal)
    if (route) return { key: literal, route, providerId: undefined }
    const segments = literal.split('/')
    if (segments.length !== 2) return null
    const [name, segment] = segments as [string, string]
    const key = `${name}/:provider`
    const providerId = decodeSegment(segment)
    if (name === 'signin' || name === 'callback') {
      // By the decoded id: `callback/git%68ub` is github's callback, as it always was.
      const own = (providerId !== null && byProvider.get(`${name}/${providerId}`)) || UNKNOWN[name]
      return { key, route: own, providerId }
    }
    const shared = routes.get(key)
    return shared ? { key, route: shared, providerId } : null
  }
}

/** A provider's sign-in route that first runs the features' `startSignIn` hooks (lib/core/feature.ts). */
function withStarts(route: Route, starts: ReadonlyArray<NonNullable<Feature['startSignIn']>>): Route {
  const post = route.POST
  if (starts.length === 0 || !post) return route
  return {
    ...route,
    POST: async (ctx) => {
      for (const start of starts) if (await start(ctx)) return
      await post(ctx)
    },
  }
}

function decodeSegment(segment: string): string | null {
  try {
    return decodeURIComponent(segment)
  } catch {
    return null
  }
}
