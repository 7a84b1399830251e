import type { FeatureDefinition } from './core/feature'
import { accessTokens } from './features/access-tokens'
import { accounts } from './features/accounts'
import type { AccountHelpers } from './features/accounts/manage'
import { email } from './features/email'
import { oauth } from './features/oauth'
import { mfa } from './features/mfa'
import type { MfaHelpers } from './features/mfa/types'
import { oidcLogout } from './features/oidc-logout'
import { passkey } from './features/passkey'
import { password } from './features/password'
import type { PasswordHelpers } from './features/password/types'
import type { PasskeyHelpers } from './features/passkey/manage'
import { providerTokensFeature } from './features/provider-tokens'
import type { TokenHelpers } from './features/provider-tokens/helpers'

/**
 * The features of the service (lib/core/feature.ts), built by auth() in this order, which is also
 * the order their sign-in hooks run in. A new feature is its folder, a line here and its public
 * exports in index.ts.
 */
export const FEATURES: readonly FeatureDefinition[] = [
  oauth,
  email,
  passkey,
  oidcLogout,
  providerTokensFeature,
  accounts,
  password,
  mfa,
  accessTokens,
]

/** The helpers the features add to the router auth() returns. */
export type FeatureHelpers = TokenHelpers & PasskeyHelpers & AccountHelpers & PasswordHelpers & MfaHelpers
