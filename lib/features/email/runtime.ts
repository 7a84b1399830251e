import { keyRing, type KeyRing } from '../../infra/crypto/keys'
import { mac } from '../../infra/crypto/mac'
import { clientKey } from '../../infra/http/client-key'
import type { Log } from '../../infra/logger'
import type { RedisRunner } from '../../infra/store/redis'
import { redisVerificationStore } from './redis-store'
import type { Limiter, ServerState } from '../../infra/store/types'
import { sendTimes, type SendTimes } from './timing'
import { memoryVerificationStore, type VerificationRecord, type VerificationStore } from './store'
import type { Provider } from '../../infra/config/providers'
import type { EmailProvider } from './types'

/** What e-mail sign-in needs at run time, built once by `auth()`. */
export interface EmailRuntime {
  readonly provider: EmailProvider
  readonly store: VerificationStore
  /**
   * `token`: the store key is HMAC(token, address); `address`: the address hash in logs and limits;
   * `typed`: seals what the user typed, kept for the sign-in page after EmailSignin.
   */
  readonly keys: { readonly token: KeyRing; readonly address: KeyRing; readonly typed: KeyRing }
  readonly limits: {
    readonly addressPerMinute: Limiter
    readonly addressPerHour: Limiter
    readonly ipPerHour: Limiter
  }
  /** How long accepted sends take: a refused recipient's answer takes as long. */
  readonly sendTimes: SendTimes
}

/**
 * Links and counters live where the rest of the server-side state does: in Redis when `redis` is
 * set (so a link asked on one instance is spent on another), else in this process (with a warning).
 * A `store` given to email() wins for the links.
 */
export function createEmailRuntime(
  providers: readonly Provider[],
  secrets: readonly string[],
  log: Log,
  state: ServerState,
  redis: RedisRunner | null,
): EmailRuntime | null {
  const provider = providers.find((p) => p.type === 'email')
  if (!provider) return null
  if (!provider.store && !redis) {
    log(
      'warn',
      'config.warning',
      "e-mail sign-in links are kept in this process's memory: they do not survive a restart and are not shared between instances (set `redis`, or give email() a `store`)",
    )
  }
  const { rateLimits } = provider
  return Object.freeze({
    provider,
    store: provider.store ?? (redis ? redisVerificationStore(redis) : memoryVerificationStore()),
    keys: Object.freeze({
      token: keyRing(secrets, 'email-token'),
      address: keyRing(secrets, 'email-address'),
      typed: keyRing(secrets, 'email-typed'),
    }),
    limits: Object.freeze({
      addressPerMinute: state.limiter('email-address-minute', rateLimits.addressPerMinute, 60),
      addressPerHour: state.limiter('email-address-hour', rateLimits.addressPerHour, 3600),
      ipPerHour: state.limiter('email-ip-hour', rateLimits.ipPerHour, 3600),
    }),
    sendTimes: sendTimes(provider.sendTimeout),
  })
}

/** The address as logs and limits know it: a keyed hash, never the address. */
export function addressHash(runtime: EmailRuntime, identifier: string): string {
  return mac(runtime.keys.address.current, identifier).slice(0, 22)
}

/** The store key of a link: HMAC over the token and the address it was sent to. */
function tokenKey(key: Buffer, token: string, identifier: string): string {
  return mac(key, token, identifier)
}

export async function keepToken(runtime: EmailRuntime, token: string, record: VerificationRecord): Promise<string> {
  const key = tokenKey(runtime.keys.token.current, token, record.identifier)
  await runtime.store.put(key, record)
  return key
}

/**
 * Spends the link of `token` for `identifier`, once: the record, or null when there is none for
 * this pair (never sent, already spent, expired, or sent to another address). Tokens hashed under
 * a rotated-out secret are still found.
 */
export async function spendToken(
  runtime: EmailRuntime,
  token: string,
  identifier: string,
): Promise<VerificationRecord | null> {
  for (const key of runtime.keys.token.all) {
    const record = await runtime.store.take(tokenKey(key, token, identifier))
    if (record) return record.identifier === identifier && record.expires * 1000 > Date.now() ? record : null
  }
  return null
}

/** Whether this client IP may ask for another link; counts the request. IPv6 clients count by /64. */
export async function ipWithinLimit(runtime: EmailRuntime, ip: string | undefined): Promise<boolean> {
  return allowedBy(runtime.limits.ipPerHour, clientKey(ip))
}

/**
 * Whether another link may go to this address; counts it. The identifier counts case-insensitively
 * even when the app's `normalizeIdentifier` keeps case: `Victim@` and `victim@` are one mailbox
 * almost everywhere, and a rule of the app's must not multiply one mailbox's allowance.
 */
export async function addressWithinLimit(runtime: EmailRuntime, identifier: string): Promise<boolean> {
  const key = addressHash(runtime, identifier.toLowerCase())
  return (await allowedBy(runtime.limits.addressPerMinute, key)) && allowedBy(runtime.limits.addressPerHour, key)
}

/** Counts one request against `limiter`; true when it is within the limit. */
async function allowedBy(limiter: Limiter, key: string): Promise<boolean> {
  return (await limiter.consume(key)) === null
}
