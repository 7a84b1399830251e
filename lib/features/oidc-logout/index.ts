import type { Context } from '../../core/context'
import type { FeatureDefinition, SignInEvent } from '../../core/feature'
import type { OidcProvider } from '../oauth/types'
import type { OAuthFeature } from '../oauth'
import { rememberProviderSession, rememberProviderSubject } from './backchannel'
import { backchannelLogout } from './backchannel-route'
import { memoryLogoutIndex, redisLogoutIndex } from './logout-index'
import { endSessionOrigins } from './end-session'
import { finishProviderLogout, keepLogoutHint, providerLogoutUrl } from './provider-logout'
import type { LogoutRuntime } from './runtime'
import { LOGOUT_EVENTS } from './types'

/** The ID token of an OpenID Connect sign-in, as the oauth feature hands it over in `account`. */
const idTokenOf = (event: SignInEvent): unknown => event.input.account.id_token

/**
 * OpenID Connect logout both ways: the provider's back-channel logout ends our sessions, and with
 * `logout: 'provider'` our sign-out goes on to the provider's (RP-Initiated Logout).
 */
export const oidcLogout: FeatureDefinition = {
  name: 'oidc-logout',
  requires: ['oauth'],
  events: LOGOUT_EVENTS,
  build({ config, redis, keys }, required) {
    const { registry } = required.get('oauth') as OAuthFeature
    const rt: LogoutRuntime = {
      index: redis ? redisLogoutIndex(redis) : memoryLogoutIndex(),
      keys: keys('logout-hint'),
      registry,
    }
    const providers = new Map<string, OidcProvider>()
    for (const { id } of config.providers) {
      const provider = registry.get(id)?.provider
      if (provider?.protocol === 'oidc') providers.set(id, provider)
    }
    return {
      name: 'oidc-logout',
      routes: {
        // The provider sends the browser back after its own sign-out (`logout: 'provider'`): `state` binds it.
        'signout-callback/:provider': { GET: (ctx: Context) => finishProviderLogout(ctx) },
        // A provider's server posts a signed logout token: no browser, so no cookie, no CSRF token and
        // any Origin; the token's signature, issuer, audience and unused jti authorize it
        // (docs/security.md). Not counted: a provider may end many sessions at once, and a made-up
        // token costs no call to the provider (keys are fetched again at most every 30 s).
        'backchannel-logout/:provider': {
          GET: (ctx) => backchannelLogout(ctx, rt),
          POST: (ctx) => backchannelLogout(ctx, rt),
          csrf: 'exempt',
          crossSite: 'none',
          bodyLimit: 'handler',
        },
      },
      // What an OpenID Connect sign-in keeps for logout: once its user id is known, the provider's
      // `sub` (back-channel logout) and with `logout: 'provider'` the ID token (id_token_hint); once
      // the session is kept, the provider's `sid` with that session (back-channel logout).
      signIn: {
        for: new Set(providers.keys()),
        async beforeSession(event) {
          const { ctx, userId, providerId } = event
          const provider = providers.get(providerId)!
          await rememberProviderSubject(ctx.svc, rt, provider.id, idTokenOf(event), userId)
          if (provider.logout === 'provider') await keepLogoutHint(ctx, rt, provider.id, idTokenOf(event))
        },
        sessionStored: (event, sid) =>
          rememberProviderSession(event.ctx.svc, rt, event.providerId, idTokenOf(event), event.userId, sid),
      },
      afterSignOut: (ctx, record, target) => providerLogoutUrl(ctx, rt, record, target),
      formActionOrigins: (ctx, page) => (page === 'signout' ? endSessionOrigins(ctx, registry) : Promise.resolve([])),
    }
  },
}
