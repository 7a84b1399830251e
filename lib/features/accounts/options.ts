import type { ResolvedConfig } from '../../infra/config'
import { ConfigurationError } from '../../infra/errors'
import { isMemoryAccounts } from './memory-store'
import type { AccountStore } from './store'

/** `accounts` resolved: null when the option is absent (then nothing changes). */
export interface ResolvedAccounts {
  readonly store: AccountStore
  readonly signUp: boolean
  /** Seconds. */
  readonly linkMaxAge: number
  readonly linkByEmail: ReadonlySet<string>
}

const METHODS = [
  'findAccount',
  'getUser',
  'findUserByVerifiedEmail',
  'createUser',
  'linkAccount',
  'unlinkAccount',
  'listAccounts',
  'touchAccount',
  'deleteUser',
] as const

const KEYS = new Set(['store', 'signUp', 'linkMaxAge', 'dangerouslyLinkByEmail'])

/** Reads `accounts` (a store, or `{ store, … }`); a mistake throws naming the option and the fix. */
export function resolveAccounts(config: ResolvedConfig, warn = true): ResolvedAccounts | null {
  const given = config.featureOptions.accounts
  if (given === undefined) return null
  if (typeof given !== 'object' || given === null)
    throw new ConfigurationError(
      '`accounts` must be an account store (postgresAccounts(pool), redisAccounts(redis), memoryAccounts()) or { store, signUp, linkMaxAge, dangerouslyLinkByEmail }',
    )
  const options: Record<string, unknown> = isStore(given) ? { store: given } : (given as Record<string, unknown>)
  for (const key of Object.keys(options))
    if (!KEYS.has(key))
      throw new ConfigurationError(
        `Unknown option \`accounts.${key}\`. Known options: store, signUp, linkMaxAge, dangerouslyLinkByEmail.`,
      )
  const store = options.store
  if (!isStore(store)) {
    const missing = METHODS.filter(
      (method) => typeof (store as Record<string, unknown> | null)?.[method] !== 'function',
    )
    throw new ConfigurationError(
      `\`accounts.store\` must be an AccountStore (postgresAccounts(pool), redisAccounts(redis), memoryAccounts() or your own); it lacks ${missing.join(', ')}`,
    )
  }
  const signUp = options.signUp ?? true
  if (typeof signUp !== 'boolean') throw new ConfigurationError('`accounts.signUp` must be true or false')
  const linkMaxAge = options.linkMaxAge ?? 600
  if (typeof linkMaxAge !== 'number' || !Number.isInteger(linkMaxAge) || linkMaxAge < 1 || linkMaxAge > 86_400)
    throw new ConfigurationError(
      '`accounts.linkMaxAge` must be a whole number of seconds from 1 to 86400 (default 600)',
    )
  const byEmail = options.dangerouslyLinkByEmail ?? []
  const ids = new Set(config.providers.map(({ id }) => id))
  if (!Array.isArray(byEmail) || byEmail.some((id) => typeof id !== 'string' || !ids.has(id)))
    throw new ConfigurationError(
      `\`accounts.dangerouslyLinkByEmail\` must list ids of configured providers (${[...ids].join(', ')}); got ${JSON.stringify(byEmail)}`,
    )
  for (const id of warn ? (byEmail as string[]) : [])
    config.log(
      'warn',
      'config.warning',
      `\`accounts.dangerouslyLinkByEmail\` includes ${id}: a new ${id} identity whose verified address belongs to a user enters that user's account without that user signing in; only for a provider that proves addresses`,
    )
  if (warn && isMemoryAccounts(store))
    config.log(
      'warn',
      'config.warning',
      "accounts are kept in this process's memory (memoryAccounts()): they are lost when it stops and not shared with other instances; use postgresAccounts(pool) or redisAccounts(redis) in production",
    )
  return Object.freeze({ store, signUp, linkMaxAge, linkByEmail: new Set(byEmail as string[]) })
}

function isStore(value: unknown): value is AccountStore {
  if (typeof value !== 'object' || value === null) return false
  const candidate = value as Record<string, unknown>
  return METHODS.every((method) => typeof candidate[method] === 'function')
}
