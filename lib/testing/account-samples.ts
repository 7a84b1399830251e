import { randomBuffer } from '../infra/crypto/random'
import { FACTOR_METHODS } from '../features/accounts/store'
import type {
  AccountStore,
  FactorMethods,
  IdentityKey,
  StoredAccount,
  StoredFactor,
  User,
} from '../features/accounts/store'
import type { TestFramework } from './types'

/** A random id part (hex: one spelling in any case). */
const randomPart = (): string => randomBuffer(16).toString('hex')

/** A time with milliseconds, so that a store that drops them is caught. */
export const at = (ms: number): Date => new Date(1_700_000_000_123 + ms)

/**
 * A user as the package writes one: every id and address fresh and random, so that tests can share
 * one database and run side by side. Its address is verified unless a test says otherwise.
 */
export function sampleUser(changes: Partial<User> = {}): User {
  return {
    id: `user-${randomPart()}`,
    name: 'Ada Lovelace',
    email: `ada-${randomPart()}@example.com`,
    emailVerified: at(500),
    image: 'https://example.com/ada.png',
    createdAt: at(0),
    ...changes,
  }
}

/** An account of `userId` with a fresh id and a fresh identity. */
export function sampleAccount(userId: string, changes: Partial<StoredAccount> = {}): StoredAccount {
  return {
    id: `account-${randomPart()}`,
    userId,
    provider: 'github',
    issuer: '',
    subject: randomPart(),
    type: 'oauth',
    label: 'ada',
    linkedAt: at(1_000),
    lastUsedAt: null,
    passwordHash: null,
    ...changes,
  }
}

/** A TOTP factor of `userId` awaiting its first code, with a fresh id and a fresh sealed secret. */
export function sampleFactor(userId: string, changes: Partial<StoredFactor> = {}): StoredFactor {
  return {
    id: `factor-${randomPart()}`,
    userId,
    type: 'totp',
    label: 'Phone',
    secret: `sealed.${randomPart()}.${randomPart()}`,
    enabled: false,
    createdAt: at(1_000),
    lastUsedAt: null,
    codesLeft: 0,
    ...changes,
  }
}

/** Fresh recovery code hashes (base64url-shaped: stores keep them as they are). */
export const sampleCodeHashes = (count: number): string[] =>
  Array.from({ length: count }, () => randomBuffer(32).toString('base64url'))

/** A fresh PHC-shaped string: stores keep a hash as it is and never read it. */
export const sampleHash = (): string => `$argon2id$v=19$m=19456,t=2,p=1$${randomPart()}$${randomPart()}${randomPart()}`

export const identityOf = ({ provider, issuer, subject }: IdentityKey): IdentityKey => ({ provider, issuer, subject })

/** What the rules of the suite receive: the framework's `it`, and the store of the running test. */
export interface Rules {
  readonly it: TestFramework['it']
  readonly store: () => AccountStore
}

/**
 * The store's setPasswordHash, or null for a store that keeps no passwords (it is optional: such a
 * store serves every way in but `password()`, and the password cases do not apply to it).
 */
export function passwordSetter(store: AccountStore): NonNullable<AccountStore['setPasswordHash']> | null {
  return store.setPasswordHash ? (userId, accountId, hash) => store.setPasswordHash!(userId, accountId, hash) : null
}

/**
 * The store's factor methods, or null for a store without second factors (they are optional as a
 * set: such a store serves everything but `mfa()`, and the factor cases do not apply to it).
 */
export function factorMethods(store: AccountStore): FactorMethods | null {
  const s = store
  if (!FACTOR_METHODS.every((name) => typeof s[name] === 'function')) return null
  return {
    addFactor: (factor, codeHashes) => s.addFactor!(factor, codeHashes),
    listFactors: (userId) => s.listFactors!(userId),
    enableFactor: (userId, factorId) => s.enableFactor!(userId, factorId),
    removeFactor: (userId, factorId) => s.removeFactor!(userId, factorId),
    spendTotpStep: (userId, factorId, step) => s.spendTotpStep!(userId, factorId, step),
    spendRecoveryCode: (userId, factorId, codeHash) => s.spendRecoveryCode!(userId, factorId, codeHash),
    replaceRecoveryCodes: (userId, factorId, codeHashes) => s.replaceRecoveryCodes!(userId, factorId, codeHashes),
  }
}

/**
 * The store as the suite reads it. "No hash" has two spellings, null and no field at all (an app's
 * store that keeps no passwords); the suite's accounts say null, so an absent one is read as null.
 * Nothing else is changed: a hash a store lost or altered still shows.
 */
export function readingNoHashAsNull(store: AccountStore): AccountStore {
  const account = <T extends StoredAccount | null>(found: T): T =>
    found === null || found.passwordHash !== undefined ? found : { ...found, passwordHash: null }
  const setPasswordHash = passwordSetter(store)
  const factors = factorMethods(store)
  return {
    findAccount: async (identity) => account(await store.findAccount(identity)),
    getUser: (userId) => store.getUser(userId),
    findUserByVerifiedEmail: (email) => store.findUserByVerifiedEmail(email),
    async createUser(user, first) {
      const result = await store.createUser(user, first)
      if (result.kind === 'created') return { ...result, account: account(result.account) }
      return result.kind === 'identityTaken' ? { ...result, account: account(result.account) } : result
    },
    async linkAccount(linked) {
      const result = await store.linkAccount(linked)
      return result.kind === 'noUser' ? result : { ...result, account: account(result.account) }
    },
    unlinkAccount: (userId, accountId, keptElsewhere) => store.unlinkAccount(userId, accountId, keptElsewhere),
    listAccounts: async (userId) => (await store.listAccounts(userId)).map(account),
    touchAccount: (userId, accountId, at) => store.touchAccount(userId, accountId, at),
    deleteUser: (userId) => store.deleteUser(userId),
    ...(setPasswordHash ? { setPasswordHash } : {}),
    ...factors,
  }
}

/** A user with one account, created; throws when the store does not answer `created`. */
export async function userWithAccount(
  store: AccountStore,
  user: User = sampleUser(),
  changes: Partial<StoredAccount> = {},
): Promise<{ user: User; account: StoredAccount }> {
  const account = sampleAccount(user.id, changes)
  const result = await store.createUser(user, account)
  if (result.kind !== 'created') throw new Error(`createUser answered ${result.kind} for a fresh user and identity`)
  return { user, account }
}
