import type { Log } from '../../infra/logger'
import type { Audit } from '../../core/audit'
import type { Telemetry } from '../../infra/telemetry'
import { refreshGrant } from '../oauth/refresh'
import type { OAuthRegistry } from '../oauth/registry'
import type { TokenRefreshMessage } from './types'
import type { Exchanged } from './refresh-redis'
import { toTokenSet, type TokenSet } from './token-set'

/**
 * The refresh_token grant of a kept set at its provider, as a result (./refresh-redis.ts's
 * `Exchanged`), and the log entries and events of this process's refreshes.
 */

export interface ExchangeDeps {
  readonly registry: OAuthRegistry
  readonly log: Log
  readonly providerTimeout: number
  /** A refresh refused for good is a record of the audit stream (no request: the provider refused the service). */
  readonly audit: Audit
  /** `auth.token.refreshes` by provider and outcome (lib/infra/telemetry); none when unset. */
  readonly telemetry?: Telemetry
  readonly events: {
    tokenRefreshed?: (message: TokenRefreshMessage) => void | Promise<void>
    tokenRefreshFailed?: (message: TokenRefreshMessage & { reason: string }) => void | Promise<void>
  }
}

const nowSeconds = () => Math.floor(Date.now() / 1000)

/** What is kept of a refresh lock for the compare-and-write after the provider's answer. */
const WRITE_MARGIN_MS = 1000

/** The refresh_token grant at the set's provider, as a result; `deadline`: when the refresh lock ends. */
export function exchanger(deps: ExchangeDeps) {
  return async (set: TokenSet, deadline: number): Promise<Exchanged> => {
    const runtime = deps.registry.get(set.provider)
    if (!runtime) return { ok: false, final: true, reason: 'the provider is no longer configured' }
    if (set.refreshToken === undefined)
      return { ok: false, final: true, reason: 'the provider gave no refresh token (ask for offline access)' }
    const answer = await refreshGrant(deps.registry, runtime, set.refreshToken, {
      deadline: deadline - WRITE_MARGIN_MS,
      requestMs: deps.providerTimeout,
      ...(set.idToken === undefined ? {} : { idToken: set.idToken }),
    })
    if (!answer.ok) return answer
    if (answer.dropped) deps.log('warn', 'tokens.warning', `provider ${set.provider}: ${answer.dropped}`)
    // How long the new access token was given: one no longer than minValidity is not refreshed at every call.
    const { expires_at: expiresAt } = answer.tokens
    const lifetime = expiresAt === undefined ? undefined : Math.max(0, expiresAt - nowSeconds())
    return { ok: true, set: toTokenSet(set.provider, answer.tokens, set, lifetime) }
  }
}

/** Logs and events of this process's refreshes: who and which provider, never a token. */
export function notifier(deps: ExchangeDeps) {
  const emit = <T>(name: string, event: ((message: T) => void | Promise<void>) | undefined, message: T) => {
    if (!event) return
    void Promise.resolve()
      .then(() => event(message))
      .catch(() => deps.log('error', 'event.error', `events.${name} threw`))
  }
  return {
    refreshed(set: TokenSet, userId: string) {
      deps.log('info', 'tokens.refreshed', `provider ${set.provider}: tokens refreshed`)
      deps.telemetry?.add('auth.token.refreshes', { 'auth.provider': set.provider, 'auth.outcome': 'refreshed' })
      emit('tokenRefreshed', deps.events.tokenRefreshed, {
        userId,
        provider: set.provider,
        expiresAt: set.expiresAt ?? null,
      })
    },
    failed(set: TokenSet, userId: string, reason: string) {
      deps.log('warn', 'tokens.refresh_failed', `provider ${set.provider}: the refresh failed for good: ${reason}`)
      deps.telemetry?.add('auth.token.refreshes', { 'auth.provider': set.provider, 'auth.outcome': 'failed' })
      deps.audit.record({
        event: 'tokens.refresh_refused',
        userId: userId === '' ? null : userId,
        provider: set.provider,
        handle: null,
        failure: 'RefreshAccessTokenError',
      })
      emit('tokenRefreshFailed', deps.events.tokenRefreshFailed, {
        userId,
        provider: set.provider,
        expiresAt: null,
        reason,
      })
    },
  }
}
