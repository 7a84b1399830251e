import type { Feature, FeatureDefinition } from '../../core/feature'
import { identifyUser, userStillThere } from './identify'
import { createAccountHelpers, listWaysIn } from './manage'
import { resolveAccounts } from './options'
import { startLink, unlink } from './routes'
import { createAccountsRuntime, type AccountsRuntime } from './runtime'
import { ACCOUNTS_EVENTS } from './types'

/**
 * Users behind the identities (`accounts`): every sign-in resolves its identity to a user, a user
 * links and unlinks ways in, and the app reads, lists and erases users. Without the option the
 * feature adds its helpers (which say the option is missing) and nothing else.
 */
export interface AccountsFeature extends Feature {
  /** The store and the rules; null without the `accounts` option. Passwords keep their hashes through it. */
  readonly runtime: AccountsRuntime | null
}

export const accounts: FeatureDefinition<AccountsFeature> = {
  name: 'accounts',
  options: ['accounts'],
  events: ACCOUNTS_EVENTS,
  check(config) {
    resolveAccounts(config, false)
  },
  build(env) {
    const resolved = resolveAccounts(env.config)
    const runtime = resolved && createAccountsRuntime(env.config, resolved, env.keys('account-link'), env.telemetry)
    const helpers = createAccountHelpers(runtime, env.services)
    if (!runtime) return { name: 'accounts', helpers, runtime }
    const feature: AccountsFeature = {
      name: 'accounts',
      helpers,
      runtime,
      routes: { unlink: { POST: (ctx) => unlink(ctx, runtime) } },
      startSignIn: startLink(runtime),
      waysInOf: async (userId) =>
        new Set((await listWaysIn(runtime, env.services(), userId)).map(({ provider }) => provider)),
      signIn: {
        for: new Set(env.config.providers.map(({ id }) => id)),
        identify: identifyUser(runtime),
        sessionStored: userStillThere(runtime),
      },
    }
    return feature
  },
}
