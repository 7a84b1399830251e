import { NO_TELEMETRY, type Telemetry } from '../../infra/telemetry'
import type { ResolvedConfig } from '../../infra/config'
import type { KeyRing } from '../../infra/crypto/keys'
import { randomToken } from '../../infra/crypto/random'
import { errorText, type Log } from '../../infra/logger'
import { guarded } from '../../infra/store/guarded'
import { storeHealth } from '../../infra/store/health'
import type { Events } from '../../infra/config/types'
import type { ResolvedAccounts } from './options'
import type { Services } from '../../core/services'
import type { AccountStore, StoredAccount, User } from './store'
import type { AccountInfo } from './types'

/** What the feature's parts share, built once at auth(). */
export interface AccountsRuntime extends ResolvedAccounts {
  /** One store call under `storeTimeout`: a failure or a late answer is a 503, the outage logged once. */
  readonly call: <T>(work: (store: AccountStore) => Promise<T>) => Promise<T>
  /** The account-link cookie's key. */
  readonly keys: KeyRing
  readonly log: Log
  /** Runs one of the app's events, failing closed: its error is logged, never thrown. */
  readonly emit: <K extends AccountEvent>(name: K, message: Parameters<NonNullable<Events[K]>>[0]) => Promise<void>
}

type AccountEvent = 'userCreated' | 'accountLinked' | 'accountUnlinked' | 'userDeleted'

export function createAccountsRuntime(
  config: ResolvedConfig,
  accounts: ResolvedAccounts,
  keys: KeyRing,
  telemetry: Telemetry = NO_TELEMETRY,
): AccountsRuntime {
  const health = storeHealth(config.log, 'The accounts store')
  const { store } = accounts
  return Object.freeze({
    ...accounts,
    // Each call a child span of the request's: the store may be PostgreSQL, Redis or the app's own.
    call: (work) =>
      telemetry.span('auth.accounts.store', {}, () => guarded(() => work(store), config.storeTimeout, health)),
    keys,
    log: config.log,
    async emit(name, message) {
      const event = config.events[name] as ((message: unknown) => void | Promise<void>) | undefined
      if (!event) return
      try {
        await event(message)
      } catch (error) {
        config.log('error', 'event.error', `events.${name} threw: ${errorText(error)}`)
      }
    },
  } satisfies AccountsRuntime)
}

/** An opaque, random id (128 bits) for a user or an account. */
export function randomId(): string {
  return randomToken(16)
}

/**
 * A stored account as the app sees it: six fields picked one by one, so that nothing else the store
 * keeps (a password account's hash) reaches an event, a helper or a page.
 */
export function accountInfo(account: StoredAccount): AccountInfo {
  const { id, provider, type, label, linkedAt, lastUsedAt } = account
  return { id, provider, type, label, linkedAt, lastUsedAt }
}

/**
 * A user another feature's sign-up made through the store (a password account whose address was
 * confirmed): logged and told to the app as the accounts' own sign-ups are.
 */
export async function announceUser(
  runtime: AccountsRuntime,
  svc: Services,
  user: User,
  provider: string,
): Promise<void> {
  svc.log('info', 'account.created', 'a sign-up created a user', { provider, ...svc.userForLog(user.id) })
  svc.audit.record({ event: 'user.created', userId: user.id, provider })
  await runtime.emit('userCreated', { user, provider })
}
