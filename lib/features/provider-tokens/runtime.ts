import type { SessionRecord } from '../../infra/config/types'
import { keyRing, type KeyRing } from '../../infra/crypto/keys'
import { AuthError, ConfigurationError } from '../../infra/errors'
import { CHUNK_SIZE, MAX_CHUNKS } from '../../infra/http/chunked-cookie'
import { boundedCache } from '../../infra/util/cache'
import type { ProviderInfo } from '../../infra/config/providers'
import type { RedisRunner } from '../../infra/store/redis'
import type { TrackedReads } from '../../infra/store/redis/held'
import { checkOptions, providerCheck, shortLived, type GetAccessTokenOptions } from './checks'
import { exchanger, notifier, type ExchangeDeps } from './exchange'
import { redisRefresher, type Exchanged } from './refresh-redis'
import { inlineRefresher } from './refresh-inline'
import { redisVault, type TokenVault } from './redis-vault'
import {
  fingerprint,
  fromAccount,
  openTokens,
  sealTokens,
  toAccessToken,
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

export type { GetAccessTokenOptions } from './checks'

export interface TokenDeps extends ExchangeDeps {
  readonly secrets: readonly string[]
  readonly redis: RedisRunner | null
  /** Redis's client-side caching of the sets' keys (`<prefix>tok:`), when it is on. */
  readonly tracked: TrackedReads | null
  /** Every configured provider: getAccessToken names the fix for an id that cannot have tokens. */
  readonly providers: readonly ProviderInfo[]
  readonly maxAge: number
  readonly maxLifetime: number
}

/** A session as getAccessToken works on it: its record, and how to save a changed one. */
export interface TokenSession {
  readonly record: SessionRecord
  save(record: SessionRecord): Promise<void>
  /**
   * A changed record can no longer reach the browser (a cookie session, the response's headers
   * sent): a refresh then would spend the refresh token for nothing, so getAccessToken refuses it.
   */
  readonly late?: boolean
}

export interface ProviderTokens {
  readonly vault: TokenVault | null
  /**
   * At sign-in, before the app's signIn callback: why the account's tokens cannot be kept (a field
   * too large), or null. The sign-in then fails as the provider's error.
   */
  refusal(account: { provider: string; [field: string]: unknown }): string | null
  /** Throws a TypeError naming the fix when `providerId` is no provider that keeps tokens (`tokens: true`). */
  checkProvider(providerId: string): void
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
  const local = inlineRefresher(
    exchangeKeeping((set) => sealTokens(ring, set).length <= INLINE_BUDGET),
    Math.min(deps.maxAge, deps.maxLifetime) * 1000,
  )

  const refusal = refusalOf(deps)

  async function capture(account: { provider: string; [field: string]: unknown }, userId: string) {
    const provider = deps.registry.get(account.provider)?.provider
    const kept = provider?.tokens ? fromAccount(account) : null
    if (!provider || !kept) return undefined
    // The sign-in hook's admit asked refusal() first: only a sign-in that skipped it comes here.
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

  const checkProvider = providerCheck(deps.providers)
  const usableFor = shortLived(deps.log)

  async function getAccessToken(session: TokenSession, providerId: string, options: GetAccessTokenOptions = {}) {
    const { record } = session
    const { minValidity, force } = checkOptions(options)
    checkProvider(providerId)
    if (record.provider !== providerId || record.tokens === undefined) return null
    if (record.tokenError) throw refreshError(providerId)
    const usable = (set: TokenSet) => usableFor(set, minValidity)
    if (record.tokens.startsWith('r:') && shared && vault) {
      const ref = record.tokens.slice(2)
      let seen = await shared.read(ref)
      if (seen && !seen.failed && (force || !usable(seen.set))) {
        users.set(seen.fp, record.userId)
        seen = await shared.successor(ref, seen.fp)
      }
      // Kept but no longer opening (a secret retired, a set sealed wrong): lost, and the session says so.
      if (!seen) return (await vault.read(ref, true)) ? failedFor(session, providerId) : null
      if (seen.failed) return failedFor(session, providerId)
      return toAccessToken(seen.set)
    }
    return inlineAccess(session, providerId, { ring, local, users, usable, force })
  }

  return Object.freeze({ vault, refusal, checkProvider, capture, getAccessToken })
}

const nowSeconds = () => Math.floor(Date.now() / 1000)

interface InlineDeps {
  readonly ring: KeyRing
  readonly local: ReturnType<typeof inlineRefresher>
  readonly users: { set(fp: string, userId: string): unknown }
  readonly usable: (set: TokenSet) => boolean
  readonly force: boolean
}

/** A cookie session's set (sealed in the record): refreshed here, the successor saved to the cookie. */
async function inlineAccess(session: TokenSession, providerId: string, deps: InlineDeps) {
  const { record } = session
  const { ring, local, users, usable, force } = deps
  let set = record.tokens?.startsWith('s:') ? openTokens(ring, record.tokens.slice(2)) : null
  if (!set) return failedFor(session, providerId)
  const first = set
  // A successor remembered may itself have been replaced since: a few steps at most.
  for (let step = 0; step < 3 && (force ? set === first : !usable(set)); step++) {
    if (session.late && set === first) throw tooLate(providerId, false)
    if (session.late) break
    users.set(fingerprint(set), record.userId)
    const answer = await local.successor(set)
    if (!answer.ok && answer.final) return failedFor(session, providerId)
    if (!answer.ok) throw new AuthError('ServiceUnavailable', `the provider could not refresh: ${answer.reason}`)
    set = answer.set
  }
  if (set === first) return toAccessToken(set)
  // The response went while the provider answered: the browser keeps `first`, the next request finds `set`.
  if (session.late) {
    local.park(first, set)
    throw tooLate(providerId, true)
  }
  await session.save({ ...record, tokens: `s:${sealTokens(ring, set)}` })
  return toAccessToken(set)
}

function refusalOf(deps: TokenDeps): ProviderTokens['refusal'] {
  return (account) => {
    const kept = deps.registry.get(account.provider)?.provider.tokens ? fromAccount(account) : null
    return kept && !kept.ok ? kept.reason : null
  }
}

/**
 * Cookie sessions keep the set in the cookie: a successor that cannot reach the browser would be
 * lost, and the spent refresh token sent again by the next request.
 */
const tooLate = (providerId: string, meanwhile: boolean) =>
  new AuthError(
    'Configuration',
    meanwhile
      ? `getAccessToken(req, "${providerId}"): the response's headers were sent while the tokens were being refreshed: with cookie sessions the new tokens could not reach the browser; they are kept in this process and the next request's cookie gets them. Await getAccessToken before the response is sent`
      : `getAccessToken(req, "${providerId}") ran after the response's headers were sent, and the tokens needed a refresh: with cookie sessions the new tokens could not reach the browser, so nothing was refreshed. Call (and await) getAccessToken before the response is sent`,
  )

const refreshError = (providerId: string) =>
  new AuthError('RefreshAccessTokenError', `the tokens of provider ${providerId} could not be refreshed: sign in again`)

/** Failed for good: the session says so to the client (`error`), and stays (the app decides: docs/provider-tokens.md). */
async function failedFor(session: TokenSession, providerId: string): Promise<never> {
  if (!session.record.tokenError) await session.save({ ...session.record, tokenError: true })
  throw refreshError(providerId)
}
