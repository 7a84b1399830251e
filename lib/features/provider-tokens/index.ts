import type { Feature, FeatureDefinition } from '../../core/feature'
import type { OAuthFeature } from '../oauth'
import { tokenCleanup } from './cleanup'
import { tokenHelpers } from './helpers'
import { providerTokens, type ProviderTokens } from './runtime'
import { TOKEN_EVENTS } from './types'

/** The provider tokens of sessions (`tokens: true` on a provider), and `getAccessToken`. */
export interface ProviderTokensFeature extends Feature {
  readonly tokens: ProviderTokens
}

export const providerTokensFeature: FeatureDefinition<ProviderTokensFeature> = {
  name: 'provider-tokens',
  requires: ['oauth'],
  events: TOKEN_EVENTS,
  build({ config, redis, tracked, services, audit, telemetry }, required) {
    const { registry } = required.get('oauth') as OAuthFeature
    const tokens = providerTokens({
      secrets: config.secrets,
      redis,
      tracked,
      registry,
      providers: config.providers,
      log: config.log,
      providerTimeout: config.providerTimeout,
      maxAge: config.session.maxAge,
      maxLifetime: config.session.maxLifetime,
      events: config.events,
      audit,
      telemetry,
    })
    const keeping = config.providers.flatMap((provider) =>
      registry.get(provider.id)?.provider.tokens ? [provider.id] : [],
    )
    return {
      name: 'provider-tokens',
      tokens,
      signIn: {
        for: new Set(keeping),
        // Tokens too large to keep are the provider's fault: refused before the app sees the sign-in.
        admit: (input) => tokens.refusal(input.account),
        async beforeSession({ input, userId }) {
          const kept = await tokens.capture(input.account, userId)
          return kept === undefined ? undefined : { tokens: kept }
        },
      },
      helpers: tokenHelpers(services, tokens),
      // Tokens kept in Redis end with their session, and live as long as it does.
      ...(tokens.vault ? tokenCleanup(tokens.vault) : {}),
    }
  },
}
