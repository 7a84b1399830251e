import type { Router } from 'express'
import { resolveConfig } from './config'
import type { AuthOptions } from './config/types'
import type { BaseUrl } from './config/url'
import { keyRing } from './crypto/keys'
import { createCsrf } from './csrf'
import { ConfigurationError } from './errors'
import { createHelpers, type AuthHelpers } from './helpers'
import { createEmailRuntime } from './providers/email-runtime'
import { createOAuthRegistry } from './providers/registry'
import type { ProviderInfo } from './providers/types'
import { createRouter } from './router'
import { createClientLogLimiter } from './routes/client-log'
import type { Services } from './services'
import { cookieStore } from './session/cookie-store'
import { createSessionManager } from './session/manager'
import { providerUrls } from './urls/provider-urls'

export type AuthRouter = Router & AuthHelpers

/**
 * The Router factory: `app.use('/api/auth', auth(options))`. Everything that can be done once is
 * done here (options checked, keys derived, stores and providers built), so that the router's
 * closures only do per-request work.
 */
export function auth(options?: AuthOptions): AuthRouter {
  // Express calls a middleware with (req, res, next): that is `app.use(auth)` without the call.
  // `arguments`, not a rest parameter, so that the public signature stays `auth(options)`.
  // eslint-disable-next-line prefer-rest-params
  if (arguments.length === 3 && typeof arguments[2] === 'function') {
    throw new ConfigurationError(
      "`auth` was passed to app.use() without being called: write app.use('/api/auth', auth({ … })) instead of app.use(auth)",
    )
  }
  const config = resolveConfig(options)
  const sessions = createSessionManager(cookieStore(keyRing(config.secrets, 'session')), config.session)
  const svc: Services = Object.freeze({
    config,
    csrf: createCsrf(keyRing(config.secrets, 'csrf')),
    sessions,
    log: config.log,
    providersJson: providersJsonFor(config.providers),
    oauth: createOAuthRegistry(config.providers, config.log, config.providerTimeout),
    email: createEmailRuntime(config.providers, config.secrets, config.log),
    clientLogLimiter: createClientLogLimiter(),
    flowKeys: Object.freeze({
      seal: keyRing(config.secrets, 'oauth-flow'),
      state: keyRing(config.secrets, 'oauth-state'),
    }),
  })
  return Object.assign(createRouter(svc), createHelpers(svc))
}

/** The `GET /providers` body, serialised once per service URL (one URL unless `trustHost`). */
function providersJsonFor(providers: readonly ProviderInfo[]): (base: BaseUrl) => string {
  const cache = new Map<string, string>()
  return (base) => {
    let json = cache.get(base.href)
    if (json === undefined) {
      json = JSON.stringify(
        Object.fromEntries(providers.map(({ id, name, type }) => [id, { id, name, type, ...providerUrls(base, id) }])),
      )
      if (cache.size < 100) cache.set(base.href, json)
    }
    return json
  }
}
