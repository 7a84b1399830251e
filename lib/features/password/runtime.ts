import { availableParallelism } from 'node:os'
import type { ResolvedConfig } from '../../infra/config'
import { ConfigurationError } from '../../infra/errors'
import { mac } from '../../infra/crypto/mac'
import type { KeyRing } from '../../infra/crypto/keys'
import { passwordHashing, type PasswordHashing } from '../../infra/crypto/password-hash'
import type { RedisRunner } from '../../infra/store/redis'
import type { AccountsRuntime } from '../accounts/runtime'
import type { EmailRuntime } from '../email/runtime'
import { hashGate, type HashGate } from './hash-gate'
import { refusalFloor, type RefusalFloor } from './refusal-floor'
import { passwordPolicy, type PasswordPolicy } from './policy'
import { memoryThrottle, redisThrottle, type Throttle } from './throttle'
import type { PasswordProvider } from './types'

/** What the password feature's routes share, built once at auth(). */
export interface PasswordRuntime {
  readonly provider: PasswordProvider
  readonly accounts: AccountsRuntime
  /** The e-mail provider's transport and link store: sign-up and reset links. Null without `email()`. */
  readonly mail: EmailRuntime | null
  readonly hashing: PasswordHashing
  /** Every hash and verification goes through it: at most `hashing.concurrency` at once. */
  readonly gate: HashGate
  /** How soon a refused password may be answered (./judge.ts). */
  readonly floor: RefusalFloor
  readonly policy: PasswordPolicy
  readonly throttle: Throttle
  /**
   * `token`: a link's store key is HMAC(token, purpose, address); `link`: seals what a link carries;
   * `account`: an identifier as throttles and logs know it; `device`: the known-device cookie.
   */
  readonly keys: {
    readonly token: KeyRing
    readonly link: KeyRing
    readonly account: KeyRing
    readonly device: KeyRing
  }
  readonly config: ResolvedConfig
}

export function createPasswordRuntime(
  config: ResolvedConfig,
  accounts: AccountsRuntime | null,
  mail: EmailRuntime | null,
  redis: RedisRunner | null,
  keys: (purpose: 'password-token' | 'password-link' | 'password-account' | 'password-device') => KeyRing,
): PasswordRuntime | null {
  const provider = config.providers.find((p) => p.type === 'credentials')
  if (!provider) return null
  const where = `providers["${provider.id}"]`
  if (accounts === null)
    throw new ConfigurationError(
      `\`${where}\` (password()) needs \`accounts\`: a password belongs to a user; add accounts: postgresAccounts(pool) (or redisAccounts(redis), memoryAccounts())`,
    )
  if (typeof accounts.store.setPasswordHash !== 'function')
    throw new ConfigurationError(
      `\`accounts.store\` lacks setPasswordHash(userId, accountId, hash), which password() needs to change and reset passwords`,
    )
  if (provider.identifier === 'email' && mail === null)
    throw new ConfigurationError(
      `\`${where}\` with identifier 'email' needs email() among the providers: its transport and link store send the sign-up and reset links`,
    )
  const appNames = [...provider.appNames, ...hostName(config)]
  return Object.freeze({
    provider,
    accounts,
    mail,
    hashing: passwordHashing(),
    gate: hashGate({
      limit: Math.min(provider.hashing.concurrency, availableParallelism() * 4),
      queue: provider.hashing.queue,
      wait: provider.hashing.wait,
    }),
    floor: refusalFloor(),
    policy: passwordPolicy(
      { minLength: provider.minLength, maxLength: provider.maxLength, appNames, breached: provider.breached },
      config.log,
    ),
    throttle: redis ? redisThrottle(redis, provider.throttle) : memoryThrottle(provider.throttle),
    keys: Object.freeze({
      token: keys('password-token'),
      link: keys('password-link'),
      account: keys('password-account'),
      device: keys('password-device'),
    }),
    config,
  })
}

/** The identifier as throttles and logs know it: a keyed hash, never the address or name. */
export function accountKey(runtime: PasswordRuntime, identifier: string): string {
  return mac(runtime.keys.account.current, identifier).slice(0, 22)
}

/** A keyed stamp of the account's current hash: a reset link carries it, so that any later change voids the link. */
export function passwordStamp(runtime: PasswordRuntime, hash: string | null | undefined): string {
  return mac(runtime.keys.link.current, hash ?? '').slice(0, 22)
}

/** The service's own name from its URL (`example` of `auth.example.com`), which no password may contain. */
function hostName(config: ResolvedConfig): string[] {
  if (config.base === null) return []
  const host = new URL(config.base.origin).hostname
  if (host === 'localhost' || /^[\d.]+$/.test(host) || host.includes(':')) return []
  const labels = host.split('.')
  const name = labels.length >= 2 ? labels[labels.length - 2]! : labels[0]!
  return name.length >= 4 ? [name] : []
}
