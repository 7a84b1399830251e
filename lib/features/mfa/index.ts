import { invalidCsrf } from '../../core/csrf-failure'
import type { Feature, FeatureDefinition } from '../../core/feature'
import type { AccountsFeature } from '../accounts'
import { enabledFactors } from './factor-store'
import { holdForSecondFactor } from './hold'
import { resolveMfa } from './options'
import { mfaHelpers, remove } from './remove'
import { createMfaRuntime } from './runtime'
import { newCodes, setupPage, totpConfirm, totpSetup } from './setup'
import { MFA_EVENTS } from './types'
import { secondFactorPage, verifySecondFactor } from './verify'

/** A code form's body: a code, a factor's name, a CSRF token, a callbackUrl. */
const CODE_BODY = 4 * 1024

/**
 * A second factor after every first factor (`mfa`, docs/mfa.md): TOTP and recovery codes kept on
 * the accounts' store; the sign-in of a first factor held (the core's `hold` hook) until the second
 * is proved at `{base}/mfa`. Without the option it adds its helpers (which say so) and nothing else.
 */
export const mfa: FeatureDefinition = {
  name: 'mfa',
  requires: ['accounts'],
  options: ['mfa'],
  events: MFA_EVENTS,
  check(config) {
    resolveMfa(config)
  },
  build(env, required) {
    const resolved = resolveMfa(env.config)
    const accounts = (required.get('accounts') as AccountsFeature).runtime
    const runtime = resolved && createMfaRuntime(env.config, resolved, accounts, env.state, env.keys)
    const helpers = mfaHelpers(runtime, () => env.config.events)
    if (runtime === null) return { name: 'mfa', helpers }
    const post = (handler: NonNullable<NonNullable<Feature['routes']>[string]['POST']>, back: string) => ({
      POST: handler,
      csrf: invalidCsrf.backTo(back),
      rateLimit: 'flow' as const,
      bodyLimit: CODE_BODY,
    })
    const feature: Feature = {
      name: 'mfa',
      helpers,
      routes: {
        mfa: { GET: (ctx) => secondFactorPage(ctx, runtime) },
        'mfa/verify': post((ctx) => verifySecondFactor(ctx, runtime), '/mfa'),
        'mfa/setup': { GET: (ctx) => setupPage(ctx, runtime) },
        'mfa/totp/setup': post((ctx) => totpSetup(ctx, runtime), '/mfa/setup'),
        'mfa/totp/confirm': post((ctx) => totpConfirm(ctx, runtime), '/mfa/setup'),
        'mfa/recovery-codes': post((ctx) => newCodes(ctx, runtime), '/mfa/setup'),
        'mfa/remove': post((ctx) => remove(ctx, runtime), '/mfa/setup'),
      },
      signIn: {
        for: new Set(env.config.providers.map(({ id }) => id)),
        hold: holdForSecondFactor(runtime),
      },
      // Once a user enrolled a factor, changing how they sign in takes a session made with it.
      assurance: async (userId) => ((await enabledFactors(runtime, userId)).length > 0 ? 2 : 1),
    }
    return feature
  },
}
