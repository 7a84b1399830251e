import { randomBuffer } from '../infra/crypto/random'
import type { AccountStore, IdentityKey, StoredAccount, User } from '../features/accounts/store'
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

export const identityOf = ({ provider, issuer, subject }: IdentityKey): IdentityKey => ({ provider, issuer, subject })

/** What the rules of the suite receive: the framework's `it`, and the store of the running test. */
export interface Rules {
  readonly it: TestFramework['it']
  readonly store: () => AccountStore
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
