import type { Context } from '../../core/context'
import { invalidCsrf } from '../../core/csrf-failure'
import type { Feature, FeatureDefinition } from '../../core/feature'
import { AuthError } from '../../infra/errors'
import { finishOAuthSignIn } from './callback'
import { authorizationOrigins } from './form-action'
import { createOAuthRegistry, type OAuthRegistry, type OAuthRuntime } from './registry'
import { startOAuthSignIn } from './start'

/** Sign-in with OAuth 2.0 and OpenID Connect providers, and Passport strategies (`oauth2()`, `oidc()`, `passportStrategy()`). */
export interface OAuthFeature extends Feature {
  /** Every OAuth provider's runtime, by id: the features that require `oauth` reach them here. */
  readonly registry: OAuthRegistry
}

export const oauth: FeatureDefinition<OAuthFeature> = {
  name: 'oauth',
  protocols: ['strategy', 'oauth2', 'oidc'],
  build({ config, telemetry }) {
    const registry = createOAuthRegistry(config.providers, config.log, config.providerTimeout, telemetry)
    const ids = new Set(config.providers.flatMap(({ id, type }) => (type === 'oauth' ? [id] : [])))
    const runtimeOf = (ctx: Context): OAuthRuntime => {
      const runtime = registry.get(ctx.providerId ?? '')
      if (!runtime) throw new AuthError('NotFound', 'no such provider')
      return runtime
    }
    const finish = (ctx: Context) => finishOAuthSignIn(ctx, registry, runtimeOf(ctx))
    return {
      name: 'oauth',
      registry,
      providers: {
        ids,
        signIn: {
          POST: (ctx) => startOAuthSignIn(ctx, registry, runtimeOf(ctx)),
          csrf: invalidCsrf.backTo('/signin'),
          rateLimit: 'flow',
          cors: 'POST',
        },
        // The provider's redirect carries no CSRF token: `state` and the flow cookie bind it. It may
        // post its answer from its own site (`response_mode=form_post`), so no origin check either.
        callback: { GET: finish, POST: finish, csrf: 'exempt', crossSite: 'none', rateLimit: 'flow' },
      },
      formActionOrigins: (ctx, page) => (page === 'signin' ? authorizationOrigins(ctx, registry) : Promise.resolve([])),
      ready: () => registry.ready(),
    }
  },
}
