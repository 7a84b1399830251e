/**
 * Accounts as the package keeps them, and where: the AccountStore interface that PostgreSQL's,
 * Redis's and this process's memory implement (and an app's own over its database). The feature
 * (./index.ts) decides; a store only keeps, and keeps its promises under concurrency: the unique
 * rules below are the store's, never a matter of timing.
 */

/** How a way in signs in: NextAuth's account types, and the password sign-in that follows. */
export type AccountType = 'oauth' | 'email' | 'webauthn' | 'credentials'

/** A user: small on purpose; the app keeps the rest under `id`. */
export interface User {
  /** Opaque and random (or the id an app's `signIn` callback adopted). */
  readonly id: string
  readonly name: string | null
  readonly email: string | null
  /** When a provider vouched for `email`; null: none did. Only verified addresses are matched. */
  readonly emailVerified: Date | null
  readonly image: string | null
  readonly createdAt: Date
}

/** Which identity: the provider, and the provider's stable subject under its issuer. */
export interface IdentityKey {
  /** The provider's id (`github`, `email`). */
  readonly provider: string
  /** The issuer of an OpenID Connect identity; '' for every other kind. */
  readonly issuer: string
  /** The provider's stable subject: OIDC `sub`, an OAuth account id, a lower-case e-mail address. Never an e-mail claim. */
  readonly subject: string
}

/** A way in: one identity, linked to one user. */
export interface StoredAccount extends IdentityKey {
  /** Opaque and random. */
  readonly id: string
  readonly userId: string
  readonly type: AccountType
  /** What the user knows it by: the address, the provider's account name; null when there is none. */
  readonly label: string | null
  readonly linkedAt: Date
  readonly lastUsedAt: Date | null
  /**
   * A password account's hash (`password()`): a PHC string, never the password. Null (or absent, in
   * an app's own store) on every other way in. The app is never handed it: the events and helpers
   * give AccountInfo, which has no such field.
   */
  readonly passwordHash?: string | null
}

export type CreateUserResult =
  /** `account` is null when the user was created alone. */
  | { readonly kind: 'created'; readonly user: User; readonly account: StoredAccount | null }
  /** The identity is linked already (a concurrent sign-up won): nothing was created. */
  | { readonly kind: 'identityTaken'; readonly account: StoredAccount }
  /** `user.emailVerified` is set and another user has that verified address: nothing was created. */
  | { readonly kind: 'emailTaken'; readonly user: User }
  /** A user with this id exists already: nothing was created. */
  | { readonly kind: 'userExists' }

export type LinkAccountResult =
  | { readonly kind: 'linked'; readonly account: StoredAccount }
  /** The identity is linked already, to this user or another (`account.userId` says): nothing changed. */
  | { readonly kind: 'identityTaken'; readonly account: StoredAccount }
  /** There is no such user (deleted meanwhile): nothing changed. */
  | { readonly kind: 'noUser' }

export type UnlinkAccountResult = 'unlinked' | 'last' | 'missing'

/** A second factor: an authenticator app's TOTP secret, or a set of single-use recovery codes. */
export type FactorType = 'totp' | 'recovery'

/** A user's second factor, as the store keeps it (`mfa()`); its recovery codes are kept beside it, hashed. */
export interface StoredFactor {
  /** Opaque and random: the caller makes it. */
  readonly id: string
  readonly userId: string
  readonly type: FactorType
  /** What the user calls it ("Phone"), or null. */
  readonly label: string | null
  /** TOTP: the sealed secret, opaque text to the store; recovery: ''. */
  readonly secret: string
  /** False: a TOTP factor awaiting its first code. */
  readonly enabled: boolean
  readonly createdAt: Date
  readonly lastUsedAt: Date | null
  /** Recovery: how many of its codes are unused, computed on read (ignored on write); TOTP: 0. */
  readonly codesLeft: number
}

export type AddFactorResult = 'added' | 'noUser'

/**
 * Where users and their ways in are kept: `postgresAccounts(pool)`, `redisAccounts(redis)`,
 * `memoryAccounts()`, or the app's own. The contract suite (`describeAccountStoreContract` in
 * `express-auth-service/testing`) states every rule; the ones that matter under concurrency:
 * - an identity is linked to at most one user, whatever races: exactly one of many concurrent
 *   `createUser`/`linkAccount` calls with one identity wins, the others answer `identityTaken`;
 * - a verified address belongs to at most one user (compared case-insensitively);
 * - `unlinkAccount` never leaves a user with fewer than one way in, counting `keptElsewhere`
 *   (ways in kept outside the store: passkeys), even when two unlinks of one user race;
 * - `setPasswordHash` writes over an account that is there at that moment or over nothing: racing
 *   an unlink or a deleteUser, it never brings the account (or the user) back;
 * - a TOTP step and a recovery code are each spent once: of concurrent `spendTotpStep` calls with
 *   one step, or `spendRecoveryCode` calls with one code, exactly one answers true.
 * Every method may throw when the database cannot be reached; the feature answers 503 then.
 */
export interface AccountStore {
  /** The account of this identity, or null. */
  findAccount(identity: IdentityKey): Promise<StoredAccount | null>
  getUser(userId: string): Promise<User | null>
  /** The user whose verified address this is (case-insensitive), or null. Unverified addresses never match. */
  findUserByVerifiedEmail(email: string): Promise<User | null>
  /**
   * A new user and its first account (`account.userId === user.id`), both or neither; `account`
   * null: the user alone (a passkey sign-up, whose passkey is kept by the passkey store).
   */
  createUser(user: User, account: StoredAccount | null): Promise<CreateUserResult>
  /** Links an identity to an existing user (`account.userId`). */
  linkAccount(account: StoredAccount): Promise<LinkAccountResult>
  /**
   * Unlinks the user's account `accountId` unless it is the user's last way in: `'last'` when the
   * user's other accounts in the store plus `keptElsewhere` would be none; `'missing'` when the
   * user has no such account (another user's id included).
   */
  unlinkAccount(userId: string, accountId: string, keptElsewhere: number): Promise<UnlinkAccountResult>
  /** The user's accounts, the first linked first; [] for an unknown user. */
  listAccounts(userId: string): Promise<StoredAccount[]>
  /** Records a sign-in with the account; nothing when the user has no such account. */
  touchAccount(userId: string, accountId: string, at: Date): Promise<void>
  /**
   * Deletes the user and every account and factor of theirs (their identities can sign up again);
   * false when there was none.
   */
  deleteUser(userId: string): Promise<boolean>
  /**
   * Replaces the password hash of the user's account `accountId` (a reset, a change, a re-hash at
   * today's cost), leaving the rest of the account as it is; false when the user has no such
   * account (another user's id included), and then nothing is written. `createUser` and
   * `linkAccount` keep an account's `passwordHash` as given; `findAccount` and `listAccounts` give it
   * back. Optional: `password()` needs it (and checks for it at auth()); a store for the other ways
   * in may leave it out, and `passwordHash` with it.
   */
  setPasswordHash?(userId: string, accountId: string, hash: string): Promise<boolean>
  /**
   * The factor methods below are optional as a set: `mfa()` needs them all (and checks for them at
   * auth()); a store without second factors leaves them all out. Each answers false (and changes
   * nothing) for a factor the user does not have, another user's included.
   *
   * Keeps a new factor of an existing user, with the recovery factor's codes (`codeHashes`, hashed
   * by the caller; ignored for TOTP); `'noUser'` when there is no such user, and nothing is kept.
   */
  addFactor?(factor: StoredFactor, codeHashes?: readonly string[]): Promise<AddFactorResult>
  /** The user's factors, the oldest first, `codesLeft` counted; [] for an unknown user. */
  listFactors?(userId: string): Promise<StoredFactor[]>
  /** Marks a factor enabled (a TOTP factor whose first code was right). */
  enableFactor?(userId: string, factorId: string): Promise<boolean>
  /** Removes a factor, and its codes and spent step with it. */
  removeFactor?(userId: string, factorId: string): Promise<boolean>
  /**
   * Spends a TOTP factor's time step: true (recording it, and `lastUsedAt` now) only when `step`
   * is greater than every step the factor spent before, so that a code is spent once, across
   * instances; of concurrent calls with one step, exactly one answers true. A step that is not a
   * safe integer answers false.
   */
  spendTotpStep?(userId: string, factorId: string, step: number): Promise<boolean>
  /**
   * Spends a recovery code: true (removing it, and `lastUsedAt` now) when `codeHash` is one of the
   * recovery factor's unused codes; of concurrent calls with one code, exactly one answers true.
   */
  spendRecoveryCode?(userId: string, factorId: string, codeHash: string): Promise<boolean>
  /** Gives the recovery factor new codes: every old one, used or not, is void from then on. */
  replaceRecoveryCodes?(userId: string, factorId: string, codeHashes: readonly string[]): Promise<boolean>
}

/** The names of the second-factor methods of an AccountStore: what `mfa` needs of a store. */
export const FACTOR_METHODS = [
  'addFactor',
  'listFactors',
  'enableFactor',
  'removeFactor',
  'spendTotpStep',
  'spendRecoveryCode',
  'replaceRecoveryCodes',
] as const

/** The second-factor methods of an AccountStore, all of them. */
export type FactorMethods = Required<Pick<AccountStore, (typeof FACTOR_METHODS)[number]>>
