import { outsideText, type Log } from '../../infra/logger'
import type { ProviderInfo } from '../../infra/config/providers'
import type { TokenSet } from './token-set'

/**
 * getAccessToken's arguments as the app's code gives them (a mistake there is a TypeError naming
 * the fix, never a `null` that reads as "not signed in"), and when a kept access token is still
 * good enough to answer.
 */

export interface GetAccessTokenOptions {
  /** Refresh when the access token expires within this many seconds. Default 60. */
  minValidity?: number
  /** `'force'`: refresh even if it looks valid (the provider's API answered 401). */
  refresh?: 'force'
}

export function checkOptions(options: GetAccessTokenOptions): { minValidity: number; force: boolean } {
  if (typeof options !== 'object' || options === null)
    throw new TypeError('getAccessToken(req, providerId, options): options is an object such as { minValidity: 60 }')
  const minValidity = options.minValidity ?? 60
  if (typeof minValidity !== 'number' || !Number.isFinite(minValidity) || minValidity < 0)
    throw new TypeError(`getAccessToken: minValidity is a number of seconds (0 or more); got ${String(minValidity)}`)
  if (options.refresh !== undefined && options.refresh !== 'force')
    throw new TypeError(`getAccessToken: refresh is 'force' or absent; got ${String(options.refresh)}`)
  return { minValidity, force: options.refresh === 'force' }
}

/**
 * Throws when the configuration alone says `providerId` can have no tokens: an unknown id, a
 * provider that is not OAuth, one without `tokens: true`. The answers are worked out once.
 */
export function providerCheck(providers: readonly ProviderInfo[]): (providerId: string) => void {
  const wrong = new Map<string, string>()
  for (const provider of providers) {
    if (provider.type !== 'oauth')
      wrong.set(
        provider.id,
        `getAccessToken: provider "${provider.id}" is not an OAuth provider (it is ${provider.type}): only OAuth and OpenID Connect providers have tokens`,
      )
    else if (!(provider as { tokens?: unknown }).tokens)
      wrong.set(
        provider.id,
        `getAccessToken: provider "${provider.id}" does not keep tokens: add \`tokens: true\` to its options`,
      )
  }
  const known = new Set(providers.map((provider) => provider.id))
  const list = [...known].map((id) => `"${id}"`).join(', ')
  return (providerId: string) => {
    if (!known.has(providerId))
      throw new TypeError(
        `getAccessToken: no provider "${outsideText(providerId, 64)}" is configured (the providers are ${list})`,
      )
    const message = wrong.get(providerId)
    if (message !== undefined) throw new TypeError(message)
  }
}

/** What is kept back of a short-lived token's life: it is not answered in its last seconds. */
const SHORT_MARGIN_SECONDS = 5

const nowSeconds = () => Math.floor(Date.now() / 1000)

/**
 * Whether `set` is still good for a caller asking `minValidity` seconds of it. A refreshed access
 * token given no more than `minValidity` to live would be refreshed on every call: it is used until
 * it expires instead (less a small margin), and the first time, a warning says so.
 */
export function shortLived(log: Log): (set: TokenSet, minValidity: number) => boolean {
  const warned = new Set<string>()
  return (set, minValidity) => {
    if (set.expiresAt === undefined) return true
    const left = set.expiresAt - nowSeconds()
    if (set.lifetime === undefined || set.lifetime > minValidity) return left > minValidity
    const margin = Math.min(SHORT_MARGIN_SECONDS, set.lifetime / 2)
    if (!warned.has(set.provider)) {
      warned.add(set.provider)
      log(
        'warn',
        'tokens.warning',
        `provider ${set.provider}: its refreshed access tokens live ${set.lifetime} s, no longer than getAccessToken's minValidity (${minValidity} s): each is used until ${margin} s before it expires instead of being refreshed on every call`,
      )
    }
    return left > margin
  }
}
