import { invalidCsrf } from '../../core/csrf-failure'
import type { Feature, FeatureDefinition, Route } from '../../core/feature'
import { sendJson } from '../../infra/http/reply'
import type { AccountsFeature } from '../accounts'
import type { PasskeyFeature } from '../passkey'
import { factorKinds } from './factor-store'
import { holdForSecondFactor } from './hold'
import { resolveMfa } from './options'
import { mfaHelpers, remove } from './remove'
import { createMfaRuntime } from './runtime'
import { newCodes, setupPage, totpConfirm, totpSetup } from './setup'
import { MFA_EVENTS } from './types'
import { secondFactorPage, verifySecondFactor } from './verify'
import { passkeyOptions, verifyPasskey } from './passkey-step'
import type { MfaRuntime } from './runtime'

/** A code form's body: a code, a factor's name, a CSRF token, a callbackUrl. */
const CODE_BODY = 4 * 1024
/** A passkey's answer is a few KB of JSON, form-encoded (the passkey feature reads 32 KB of it at most). */
const PASSKEY_BODY = 64 * 1024

/**
 * A second factor after every first factor (`mfa`, docs/mfa.md): TOTP and recovery codes kept on
 * the accounts' store; the sign-in of a first factor held (the core's `hold` hook) until the second
 * is proved at `{base}/mfa`. Without the option it adds its helpers (which say so) and nothing else.
 */
export const mfa: FeatureDefinition = {
  name: 'mfa',
  requires: ['accounts', 'passkey'],
  options: ['mfa'],
  events: MFA_EVENTS,
  check(config) {
    resolveMfa(config)
  },
  build(env, required) {
    const resolved = resolveMfa(env.config)
    const accounts = (required.get('accounts') as AccountsFeature).runtime
    const { secondStep } = required.get('passkey') as PasskeyFeature
    const runtime = resolved && createMfaRuntime(env.config, resolved, accounts, env.state, env.keys, secondStep)
    const helpers = mfaHelpers(runtime, () => env.config.events, env.audit)
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
        ...passkeyRoutes(runtime),
      },
      signIn: {
        for: new Set(env.config.providers.map(({ id }) => id)),
        hold: holdForSecondFactor(runtime),
      },
      // Once a user enrolled a factor, changing how they sign in takes a session made with it.
      assurance: async (userId) => ((await factorKinds(runtime, userId)).length > 0 ? 2 : 1),
    }
    return feature
  },
}

/**
 * The passkey's routes, when `mfa.factors` lists the passkey provider. The options are a GET that
 * keeps a challenge and sets a cookie: refused from another site, and counted, as the passkey
 * feature's own options are; the answer is a POST with the CSRF token, as the code forms are.
 */
function passkeyRoutes(runtime: MfaRuntime): Record<string, Route> {
  const step = runtime.passkeyStep
  if (step === null) return {}
  return {
    'mfa/passkey/options': {
      GET: (ctx) => passkeyOptions(ctx, runtime, step),
      crossSite: 'all',
      crossSiteAnswer: async (ctx) => sendJson(ctx.res, 403, JSON.stringify({ error: 'Cross-site request' }), true),
      rateLimit: 'all',
    },
    'mfa/passkey': {
      POST: (ctx) => verifyPasskey(ctx, runtime, step),
      csrf: invalidCsrf.backTo('/mfa'),
      rateLimit: 'flow',
      bodyLimit: PASSKEY_BODY,
    },
  }
}
