import { availableParallelism } from 'node:os'
import { ConfigurationError } from '../../infra/errors'
import { hasControls } from '../../infra/logger'
import { checkKeys, describe } from '../../infra/util/options'
import { isRecord } from '../../infra/util/object'
import { resolveBreached, type BreachedOptions } from './breached'
import type { ThrottleOptions } from './throttle'
import type { PasswordProvider } from './types'

export interface PasswordOptions {
  /** Default `credentials`, the id NextAuth's `signIn('credentials', …)` posts to. */
  id?: string
  /** Default `Password`. */
  name?: string
  /** What users sign in with: `'email'` (default; sign-up confirms the address by mail) or `'username'`. */
  identifier?: 'email' | 'username'
  /** The fewest code points a password may have: 15 (default) or more, as NIST SP 800-63B-4 asks of a password that is the only factor. */
  minLength?: number
  /** The most code points (64 to 1024, default 128): never truncated, refused beyond. */
  maxLength?: number
  /** The app's name (or names): a password containing one is refused. */
  appName?: string | readonly string[]
  /**
   * The breached-password check (Have I Been Pwned's k-anonymity range API: only 5 hex digits of the
   * password's SHA-1 leave the server, padded): `{ url, timeout, onUnavailable }`, or false to turn it off.
   */
  breached?: false | { url?: string; timeout?: number; onUnavailable?: 'allow' | 'refuse' }
  /** Hashes at once (default: the machine's cores), waiting for a turn (default 4 × that), and the most milliseconds one waits (2000). */
  hashing?: { concurrency?: number; queue?: number; wait?: number }
  /** Failures before an account slows down (10), and its longest delay in seconds (300). */
  throttle?: { freeFailures?: number; maxDelay?: number }
}

const KEYS = ['id', 'name', 'identifier', 'minLength', 'maxLength', 'appName', 'breached', 'hashing', 'throttle']

/**
 * Sign-in with an identifier and a password on NextAuth's credentials wire, with sign-up, reset and
 * change (docs/passwords.md). Requires `accounts`; with an e-mail identifier, also `email()`, whose
 * transport and link store send the sign-up and reset links.
 */
export function password(options: PasswordOptions = {}): PasswordProvider {
  if (!isRecord(options))
    throw new ConfigurationError("password() takes an options object such as { identifier: 'email' }")
  const where = `providers["${typeof options.id === 'string' ? options.id : 'credentials'}"]`
  checkKeys(options, KEYS, `${where}.`)
  const identifier = options.identifier ?? 'email'
  if (identifier !== 'email' && identifier !== 'username')
    throw new ConfigurationError(`\`${where}.identifier\` must be 'email' or 'username'; got ${describe(identifier)}`)
  const maxLength = whole(options.maxLength, `${where}.maxLength`, 128, 64, 1024)
  const minLength = whole(options.minLength, `${where}.minLength`, 15, 15, maxLength)
  return Object.freeze({
    id: text(options.id, `${where}.id`, 'credentials'),
    name: text(options.name, `${where}.name`, 'Password'),
    type: 'credentials' as const,
    protocol: 'password' as const,
    identifier,
    minLength,
    maxLength,
    appNames: Object.freeze(appNames(options.appName, `${where}.appName`)),
    breached: breachedOf(options.breached, `${where}.breached`),
    hashing: Object.freeze(hashingOf(options.hashing, `${where}.hashing`)),
    throttle: Object.freeze(throttleOf(options.throttle, `${where}.throttle`)),
    resetMaxAge: 3600,
  })
}

function text(value: unknown, option: string, fallback: string): string {
  if (value === undefined) return fallback
  if (typeof value !== 'string' || value === '' || value.length > 64 || hasControls(value))
    throw new ConfigurationError(`\`${option}\` must be a short name (1 to 64 characters); got ${describe(value)}`)
  return value
}

function whole(value: unknown, option: string, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
    throw new ConfigurationError(
      `\`${option}\` must be a whole number from ${min} to ${max} (default ${fallback}); got ${describe(value)}`,
    )
  return value
}

function appNames(value: unknown, option: string): string[] {
  if (value === undefined) return []
  const names = typeof value === 'string' ? [value] : value
  if (!Array.isArray(names) || names.some((name) => typeof name !== 'string' || name.length > 200))
    throw new ConfigurationError(`\`${option}\` must be the app's name, or a list of its names; got ${describe(value)}`)
  return (names as string[]).map((name) => name.normalize('NFKC').trim()).filter((name) => [...name].length >= 4)
}

function breachedOf(value: unknown, option: string): BreachedOptions | null {
  return resolveBreached(value, option)
}

function hashingOf(value: unknown, option: string): PasswordProvider['hashing'] {
  if (value !== undefined && !isRecord(value))
    throw new ConfigurationError(`\`${option}\` must be an object such as { concurrency: 2 }; got ${describe(value)}`)
  const given = value ?? {}
  checkKeys(given, ['concurrency', 'queue', 'wait'], `${option}.`)
  const concurrency = whole(given.concurrency, `${option}.concurrency`, availableParallelism(), 1, 256)
  return {
    concurrency,
    queue: whole(given.queue, `${option}.queue`, 4 * concurrency, 0, 10_000),
    wait: whole(given.wait, `${option}.wait`, 2000, 1, 60_000),
  }
}

function throttleOf(value: unknown, option: string): ThrottleOptions {
  if (value !== undefined && !isRecord(value))
    throw new ConfigurationError(`\`${option}\` must be an object such as { freeFailures: 10 }; got ${describe(value)}`)
  const given = value ?? {}
  checkKeys(given, ['freeFailures', 'maxDelay'], `${option}.`)
  return {
    freeFailures: whole(given.freeFailures, `${option}.freeFailures`, 10, 3, 100),
    maxDelay: whole(given.maxDelay, `${option}.maxDelay`, 300, 1, 3600),
    clientFreeFailures: 100,
    forgetAfter: 86_400,
  }
}
