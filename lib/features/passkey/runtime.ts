import type { SessionRecord } from '../../infra/config/types'
import { keyRing, type KeyRing } from '../../infra/crypto/keys'
import type { Log } from '../../infra/logger'
import { memoryChallengeStore, memoryPasskeyStore, type ChallengeStore, type PasskeyStore } from './store'
import type { RedisRunner } from '../../infra/store/redis'
import { redisChallengeStore, redisPasskeyStore } from './redis-store'
import type { Provider } from '../../infra/config/providers'
import type { PasskeyProvider } from './types'
import type { BaseUrl } from '../../infra/urls/base-url'
import { ConfigurationError } from '../../infra/errors'
import { isIP } from 'node:net'

/** What passkey sign-in needs at run time, built once by `auth()`. */
export interface PasskeyRuntime {
  readonly provider: PasskeyProvider
  readonly store: PasskeyStore
  readonly challenges: ChallengeStore
  /** The challenge's store key is HMAC(cookie value): a dump of the store names no browser's cookie. */
  readonly challengeKeys: KeyRing
  /** The `listSessions` handle of the session a cookie's token names (null for cookie sessions), for `passkeyAdded`. */
  readonly sessionHandle: (token: string, record: SessionRecord | null) => string | null
}

/**
 * Passkeys live in the app's store when `passkey({ store })` names one, else where the rest of the
 * server-side state does: Redis when `redis` is set, else this process (with a warning).
 * Challenges are always beside the other state, so that every instance can spend one.
 */
export function createPasskeyRuntime(
  providers: readonly Provider[],
  secrets: readonly string[],
  log: Log,
  redis: RedisRunner | null,
  base: BaseUrl | null,
  sessionHandle: (token: string, record: SessionRecord | null) => string | null,
): PasskeyRuntime | null {
  const provider = providers.find((p) => p.type === 'webauthn')
  if (!provider) return null
  if (base) checkRelyingParty(new URL(base.origin))
  if (!provider.store && !redis)
    log(
      'warn',
      'config.warning',
      "passkeys are kept in this process's memory: they are lost on restart and not shared between instances, so this is for development only (set `redis`, or give passkey() a `store` over your database)",
    )
  if (!redis)
    log(
      'warn',
      'config.warning',
      "passkey challenges are kept in this process's memory: with more than one instance, set `redis`",
    )
  if (provider.userVerification !== 'required')
    log(
      'warn',
      'config.warning',
      '`dangerouslyAllowWithoutUserVerification` is set: a passkey signs in without its PIN, fingerprint or face check',
    )
  return Object.freeze({
    provider,
    store: provider.store ?? (redis ? redisPasskeyStore(redis) : memoryPasskeyStore()),
    challenges: redis ? redisChallengeStore(redis) : memoryChallengeStore(),
    challengeKeys: keyRing(secrets, 'passkey-challenge'),
    sessionHandle,
  })
}

/** Browsers take a host name as the relying party ID, and run WebAuthn in a secure context only. */
function checkRelyingParty(origin: URL): void {
  const host = origin.hostname.replace(/^\[(.*)\]$/, '$1')
  if (isIP(host) !== 0)
    throw new ConfigurationError(
      `passkey(): \`url\` names an IP address, which browsers refuse as a relying party ID; serve the app on a host name (http://localhost for development); got ${origin.origin}`,
    )
  const local = host === 'localhost' || host.endsWith('.localhost')
  if (origin.protocol === 'http:' && !local)
    throw new ConfigurationError(
      `passkey(): \`url\` is http on ${host}: browsers offer passkeys only on https (or http on localhost); use an https \`url\``,
    )
}
