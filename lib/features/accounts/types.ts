import type { AccountStore, AccountType, User } from './store'

/** `accounts: { store, … }`: the store and how accounts behave. */
export interface AccountsOptions {
  /** `postgresAccounts(pool)`, `redisAccounts(redis)`, `memoryAccounts()`, or the app's own. */
  readonly store: AccountStore
  /** A sign-in with an identity no user has creates a user (default); false refuses it (AccessDenied). */
  readonly signUp?: boolean
  /** Seconds after signing in during which a user may link or unlink; older sessions sign in again first. Default 600. */
  readonly linkMaxAge?: number
  /**
   * Provider ids whose new identities are linked to the existing user with the same verified address
   * at once, without that user signing in first. The provider's word on an address becomes enough
   * to enter that user's account: only for a provider that proves addresses as well as you would.
   */
  readonly dangerouslyLinkByEmail?: readonly string[]
}

/** A way in as the app lists it for its user (`listAccounts`): never a token or a key. */
export interface AccountInfo {
  readonly id: string
  /** The provider's id. */
  readonly provider: string
  readonly type: AccountType
  /** What the user knows it by: the address, the provider's account name, the passkey's name. */
  readonly label: string | null
  readonly linkedAt: Date
  readonly lastUsedAt: Date | null
}

declare module '../../infra/config/types' {
  interface AuthOptions {
    /**
     * Users behind the identities: each sign-in's identity resolves to a user, who may link more
     * ways in (docs/accounts.md). An AccountStore, or `{ store, signUp, linkMaxAge, dangerouslyLinkByEmail }`.
     */
    accounts?: AccountStore | AccountsOptions
  }
  interface Events {
    /** A sign-in with a new identity created a user (never a token). */
    userCreated?: (message: { user: User; provider: string }) => void | Promise<void>
    /** A way in was linked to a user: asked for with `link=true`, confirmed by signing in, or by `dangerouslyLinkByEmail`. Tell the user. */
    accountLinked?: (message: { userId: string; account: AccountInfo }) => void | Promise<void>
    /** A way in was unlinked (`POST /unlink` or `unlinkAccount`). Tell the user. */
    accountUnlinked?: (message: { userId: string; account: AccountInfo }) => void | Promise<void>
    /** `deleteUser` erased a user: sessions ended, ways in, passkeys and provider tokens gone. */
    userDeleted?: (message: { userId: string }) => void | Promise<void>
  }
}

declare module '../../infra/logger' {
  interface LogEvents {
    'account.created': true
    'account.linked': true
    'account.unlinked': true
    'account.refused': true
    'account.pending': true
    'account.reauth': true
    'account.deleted': true
  }
}

/** The events this feature adds (checked at auth() with the core's). */
export const ACCOUNTS_EVENTS = ['userCreated', 'accountLinked', 'accountUnlinked', 'userDeleted'] as const
