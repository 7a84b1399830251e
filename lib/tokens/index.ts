import type { SessionRecord, TokenRefreshMessage } from '../config/types'
import { keyRing } from '../crypto/keys'
import { AuthError, ConfigurationError } from '../errors'
import { CHUNK_SIZE, MAX_CHUNKS } from '../http/chunked-cookie'
import type { Log } from '../logger'
import { boundedCache } from '../util/cache'
import { refreshGrant } from '../providers/oauth/refresh'
import type { OAuthRegistry } from '../providers/oauth/registry'
import type { RedisRunner } from '../store/redis'
import type { TrackedReads } from '../store/redis/held'
import { redisRefresher, type Exchanged } from './refresh-redis'
import { inlineRefresher } from './refresh-inline'
import { redisVault, type TokenVault } from './redis-vault'
import {
  fingerprint,
  fromAccount,
  openTokens,
  sealTokens,
  toAccessToken,
  toTokenSet,
  type AccessToken,
  type TokenSet,
} from './token-set'

export type { AccessToken } from './token-set'

/**
 * The provider's tokens of each session (`tokens: true` on a provider): captured at sign-in, kept in
 * Redis (with `redis`) or sealed in the session itself, and `getAccessToken`, which refreshes them
 * once however many requests and instances ask at the same time (./refresh-redis.ts,
 * ./refresh-inline.ts). The record's `tokens` is `r:<ref>` (Redis) or `s:<sealed set>`.
 */

export interface GetAccessTokenOptions {
  /** Refresh when the access token expires within this many seconds. Default 60. */
  minValidity?: number
  /** `'force'`: refresh even if it looks valid (the provider's API answered 401). */
  refresh?: 'force'
}

export interface TokenDeps {
  readonly secrets: readonly string[]
  readonly redis: RedisRunner | null
  /** Redis's client-side caching of the sets' keys (`<prefix>tok:`), when it is on. */
  readonly tracked: TrackedReads | null
  readonly registry: OAuthRegistry
  readonly log: Log
  readonly providerTimeout: number
  readonly maxAge: number
  readonly maxLifetime: number
  readonly events: {
    tokenRefreshed?: (message: TokenRefreshMessage) => void | Promise<void>
    tokenRefreshFailed?: (message: TokenRefreshMessage & { reason: string }) => void | Promise<void>
  }
}

/** A session as getAccessToken works on it: its record, and how to save a changed one. */
export interface TokenSession {
  readonly record: SessionRecord
  save(record: SessionRecord): Promise<void>
}

export interface ProviderTokens {
  readonly vault: TokenVault | null
  /**
   * At sign-in, before the app's signIn callback: why the account's tokens cannot be kept (a field
   * too large), or null. The sign-in then fails as the provider's error.
   */
  refusal(account: { provider: string; [field: string]: unknown }): string | null
  /** At sign-in: the record's `tokens` for this account, or undefined when its provider keeps none. */
  capture(account: { provider: string; [field: string]: unknown }, userId: string): Promise<string | undefined>
  getAccessToken(
    session: TokenSession,
    providerId: string,
    options?: GetAccessTokenOptions,
  ): Promise<AccessToken | null>
}

/** The sealed set must leave room in the session cookie for the rest of the record (and base64url's growth). */
const INLINE_BUDGET = Math.floor(((MAX_CHUNKS * CHUNK_SIZE - 1500) * 3) / 4)

export function providerTokens(deps: TokenDeps): ProviderTokens {
  const ring = keyRing(deps.secrets, 'provider-tokens')
  const vault = deps.redis && redisVault(deps.redis, deps.tracked)
  // Whose set is being refreshed, for the events (by fingerprint: the set itself is re-read under the lock).
  const users = boundedCache<string, string>(10_000, 5 * 60_000)
  const notify = notifier(deps)
  const base = exchanger(deps)
  /** `fits`: whether a new set can be kept (a cookie session's has a budget); one that cannot is a failure for now. */
  const exchangeKeeping =
    (fits: (set: TokenSet) => boolean) =>
    async (set: TokenSet, deadline = Infinity): Promise<Exchanged> => {
      let answer = await base(set, deadline)
      if (answer.ok && !fits(answer.set))
        answer = { ok: false, final: false, reason: 'the new tokens do not fit in the session cookie (set `redis`)' }
      const userId = users.get(fingerprint(set)) ?? ''
      if (answer.ok) notify.refreshed(answer.set, userId)
      else if (answer.final) notify.failed(set, userId, answer.reason)
      else
        deps.log(
          'warn',
          'tokens.warning',
          `provider ${set.provider}: the refresh failed, the tokens are kept: ${answer.reason}`,
        )
      return answer
    }
  const exchange = exchangeKeeping(() => true)
  const shared = vault && redisRefresher({ vault, ring, lockMs: deps.providerTimeout + 5000, exchange })
  const local = inlineRefresher(exchangeKeeping((set) => sealTokens(ring, set).length <= INLINE_BUDGET))

  function refusal(account: { provider: string; [field: string]: unknown }) {
    const kept = deps.registry.get(account.provider)?.provider.tokens ? fromAccount(account) : null
    return kept && !kept.ok ? kept.reason : null
  }

  async function capture(account: { provider: string; [field: string]: unknown }, userId: string) {
    const provider = deps.registry.get(account.provider)?.provider
    const kept = provider?.tokens ? fromAccount(account) : null
    if (!provider || !kept) return undefined
    // The OAuth callback asked refusal() first: only a sign-in that skipped it comes here.
    if (!kept.ok) throw new AuthError('OAuthCallback', `provider ${provider.id}: ${kept.reason}`)
    const { set } = kept
    const sealed = sealTokens(ring, set)
    // Listed for the user as long as a renewed session can live, so that revokeSessions finds them.
    const now = nowSeconds()
    if (vault)
      return `r:${await vault.keep(userId, sealed, fingerprint(set), now + deps.maxAge, now + deps.maxLifetime)}`
    if (sealed.length > INLINE_BUDGET)
      throw new ConfigurationError(
        `the tokens of provider ${provider.id} (${sealed.length} characters sealed) do not fit in the session cookie: set \`redis\` (an ioredis client) so that they are kept in Redis`,
      )
    return `s:${sealed}`
  }

  async function getAccessToken(session: TokenSession, providerId: string, options: GetAccessTokenOptions = {}) {
    const { record } = session
    const { minValidity, force } = checkOptions(options)
    if (record.provider !== providerId || record.tokens === undefined) return null
    if (record.tokenError) throw refreshError(providerId)
    const usable = (set: TokenSet) => set.expiresAt === undefined || set.expiresAt - nowSeconds() > minValidity
    if (record.tokens.startsWith('r:') && shared) {
      const ref = record.tokens.slice(2)
      let seen = await shared.read(ref)
      if (seen && !seen.failed && (force || !usable(seen.set))) {
        users.set(seen.fp, record.userId)
        seen = await shared.successor(ref, seen.fp)
      }
      if (!seen) return null
      if (seen.failed) return failedFor(session, providerId)
      return toAccessToken(seen.set)
    }
    let set = record.tokens.startsWith('s:') ? openTokens(ring, record.tokens.slice(2)) : null
    if (!set) return null
    const first = set
    // A successor remembered may itself have been replaced since: a few steps at most.
    for (let step = 0; step < 3 && (force ? set === first : !usable(set)); step++) {
      users.set(fingerprint(set), record.userId)
      const answer = await local.successor(set)
      if (!answer.ok && answer.final) return failedFor(session, providerId)
      if (!answer.ok) throw new AuthError('ServiceUnavailable', `the provider could not refresh: ${answer.reason}`)
      set = answer.set
    }
    if (set !== first) await session.save({ ...record, tokens: `s:${sealTokens(ring, set)}` })
    return toAccessToken(set)
  }

  return Object.freeze({ vault, refusal, capture, getAccessToken })
}

const nowSeconds = () => Math.floor(Date.now() / 1000)

const refreshError = (providerId: string) =>
  new AuthError('RefreshAccessTokenError', `the tokens of provider ${providerId} could not be refreshed: sign in again`)

/** Failed for good: the session says so to the client (`error`), and stays (the app decides: docs/provider-tokens.md). */
async function failedFor(session: TokenSession, providerId: string): Promise<never> {
  if (!session.record.tokenError) await session.save({ ...session.record, tokenError: true })
  throw refreshError(providerId)
}

function checkOptions(options: GetAccessTokenOptions): { minValidity: number; force: boolean } {
  if (typeof options !== 'object' || options === null)
    throw new TypeError('getAccessToken(req, providerId, options): options is an object such as { minValidity: 60 }')
  const minValidity = options.minValidity ?? 60
  if (typeof minValidity !== 'number' || !Number.isFinite(minValidity) || minValidity < 0)
    throw new TypeError(`getAccessToken: minValidity is a number of seconds (0 or more); got ${String(minValidity)}`)
  if (options.refresh !== undefined && options.refresh !== 'force')
    throw new TypeError(`getAccessToken: refresh is 'force' or absent; got ${String(options.refresh)}`)
  return { minValidity, force: options.refresh === 'force' }
}

/** What is kept of a refresh lock for the compare-and-write after the provider's answer. */
const WRITE_MARGIN_MS = 1000

/** The refresh_token grant at the set's provider, as a result; `deadline`: when the refresh lock ends. */
function exchanger(deps: TokenDeps) {
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
    return { ok: true, set: toTokenSet(set.provider, answer.tokens, set) }
  }
}

/** Logs and events of this process's refreshes: who and which provider, never a token. */
function notifier(deps: TokenDeps) {
  const emit = <T>(name: string, event: ((message: T) => void | Promise<void>) | undefined, message: T) => {
    if (!event) return
    void Promise.resolve()
      .then(() => event(message))
      .catch(() => deps.log('error', 'event.error', `events.${name} threw`))
  }
  return {
    refreshed(set: TokenSet, userId: string) {
      deps.log('info', 'tokens.refreshed', `provider ${set.provider}: tokens refreshed`)
      emit('tokenRefreshed', deps.events.tokenRefreshed, {
        userId,
        provider: set.provider,
        expiresAt: set.expiresAt ?? null,
      })
    },
    failed(set: TokenSet, userId: string, reason: string) {
      deps.log('warn', 'tokens.refresh_failed', `provider ${set.provider}: the refresh failed for good: ${reason}`)
      emit('tokenRefreshFailed', deps.events.tokenRefreshFailed, {
        userId,
        provider: set.provider,
        expiresAt: null,
        reason,
      })
    },
  }
}
