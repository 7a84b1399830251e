import { errorText, type Log } from '../../infra/logger'
import type { OidcProvider } from './types'
import { Unreachable } from './oidc-discovery'

/** How a failed OpenID Connect discovery is told, logged and waited out (./registry.ts). */

export const DISCOVERY_BACKOFF_MS = 30_000

/**
 * How long a failed discovery answers sign-in attempts without asking the issuer again: the whole
 * back-off when the issuer answered wrongly (a configuration no retry mends soon), a few seconds
 * when it could not be reached (an outage that may end any moment).
 */
export const UNREACHABLE_RETRY_MS = 5_000

export function backoffMs(failure: DiscoveryError): number {
  return failure.kind === 'configuration' ? DISCOVERY_BACKOFF_MS : UNREACHABLE_RETRY_MS
}

/**
 * Why an OIDC provider could not be set up: its message names the provider, the issuer and the
 * cause. `kind` is `configuration` when the issuer answered something other than its own discovery
 * (another issuer, a 404, missing endpoints): no retry helps, the configuration is wrong; `unreachable` for
 * an outage.
 */
export class DiscoveryError extends Error {
  override name = 'DiscoveryError'
  constructor(
    readonly provider: string,
    readonly kind: 'configuration' | 'unreachable',
    message: string,
  ) {
    super(message)
  }
}

/**
 * A failed discovery as a DiscoveryError, logged once: the same kind of failure again within
 * DISCOVERY_BACKOFF_MS (a page view, then the sign-in it leads to) is not logged again. A wrong
 * configuration is an error, an issuer that cannot be reached now a warning.
 */
export function failureLog(provider: OidcProvider, log: Log): (error: unknown) => DiscoveryError {
  // Keyed on the kind of failure, not its text: an issuer that words each answer differently still
  // gets one entry per back-off.
  let last = ''
  let loggedAt = -Infinity
  return (error) => {
    const cause = error instanceof Unreachable ? 'unreachable' : 'configuration'
    const message = `provider ${provider.id}: OpenID Connect discovery at ${provider.issuer} failed: ${errorText(error)}`
    if (cause !== last || Date.now() - loggedAt >= DISCOVERY_BACKOFF_MS) {
      ;[last, loggedAt] = [cause, Date.now()]
      log(cause === 'configuration' ? 'error' : 'warn', 'provider.discovery_failed', message, {
        provider: provider.id,
        cause,
      })
    }
    return new DiscoveryError(provider.id, cause, message)
  }
}
