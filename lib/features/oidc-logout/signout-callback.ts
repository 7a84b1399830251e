import type { Context } from '../../core/context'
import { finishProviderLogout } from './provider-logout'

/**
 * GET /signout-callback/:provider: the `post_logout_redirect_uri` of a `logout: 'provider'` sign-out.
 * The provider sends the browser back here; `state` must be the one this browser's sign-out made
 * (lib/features/oidc-logout/provider-logout.ts), and then the browser goes on to the sign-out's callbackUrl.
 */
export function signOutCallback(ctx: Context): void {
  finishProviderLogout(ctx)
}
