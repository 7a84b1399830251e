import { memoryFactors } from './memory-factors'
import type { AccountStore, IdentityKey, StoredAccount, User } from './store'

/** What marks a store as memoryAccounts(), so that the feature can warn that it is one. */
const IN_MEMORY = Symbol('memoryAccounts')

/** Whether `store` keeps accounts in this process's memory (memoryAccounts()). */
export function isMemoryAccounts(store: unknown): boolean {
  return typeof store === 'object' && store !== null && (store as { [IN_MEMORY]?: unknown })[IN_MEMORY] === true
}

/**
 * Accounts in this process's memory, for development: lost when the process stops and not shared
 * with other instances. Every lookup of an outside string is through a Map. Each method does its
 * whole work before it first awaits, so the unique rules hold under concurrent calls by
 * construction. Dates are copied in and out: a caller that changes one changes nothing here.
 */
export function memoryAccounts(): AccountStore {
  const users = new Map<string, User>()
  /** Per user, their accounts by id, in the order they were linked. */
  const accounts = new Map<string, Map<string, StoredAccount>>()
  /** By identity (identityKey), the account. */
  const identities = new Map<string, StoredAccount>()
  /** By lower-case verified address, the user's id. */
  const addresses = new Map<string, string>()
  const { forget, ...factors } = memoryFactors((userId) => users.has(userId))

  function keep(account: StoredAccount): StoredAccount {
    const kept = copyAccount(account)
    identities.set(identityKey(account), kept)
    accounts.get(account.userId)?.set(account.id, kept)
    return copyAccount(kept)
  }

  const store: AccountStore & { readonly [IN_MEMORY]: true } = {
    [IN_MEMORY]: true,
    async findAccount(identity) {
      return copyOrNull(identities.get(identityKey(identity)), copyAccount)
    },
    async getUser(userId) {
      return copyOrNull(users.get(userId), copyUser)
    },
    async findUserByVerifiedEmail(email) {
      const userId = addresses.get(email.toLowerCase())
      return userId === undefined ? null : copyOrNull(users.get(userId), copyUser)
    },
    async createUser(user, account) {
      if (users.has(user.id)) return { kind: 'userExists' }
      const taken = account && identities.get(identityKey(account))
      if (taken) return { kind: 'identityTaken', account: copyAccount(taken) }
      const address = verifiedAddress(user)
      const owner = address === null ? undefined : users.get(addresses.get(address) ?? '')
      if (owner) return { kind: 'emailTaken', user: copyUser(owner) }
      users.set(user.id, copyUser(user))
      accounts.set(user.id, new Map())
      if (address !== null) addresses.set(address, user.id)
      return { kind: 'created', user: copyUser(user), account: account && keep(account) }
    },
    async linkAccount(account) {
      if (!users.has(account.userId)) return { kind: 'noUser' }
      const taken = identities.get(identityKey(account))
      if (taken) return { kind: 'identityTaken', account: copyAccount(taken) }
      return { kind: 'linked', account: keep(account) }
    },
    async unlinkAccount(userId, accountId, keptElsewhere) {
      const own = accounts.get(userId)
      const account = own?.get(accountId)
      if (!own || !account) return 'missing'
      if (own.size - 1 + keptElsewhere < 1) return 'last'
      own.delete(accountId)
      identities.delete(identityKey(account))
      return 'unlinked'
    },
    async listAccounts(userId) {
      return [...(accounts.get(userId)?.values() ?? [])].map(copyAccount)
    },
    async touchAccount(userId, accountId, at) {
      const own = accounts.get(userId)
      const account = own?.get(accountId)
      if (own && account) keep({ ...account, lastUsedAt: at })
    },
    async setPasswordHash(userId, accountId, hash) {
      const account = accounts.get(userId)?.get(accountId)
      if (!account) return false
      keep({ ...account, passwordHash: hash })
      return true
    },
    async deleteUser(userId) {
      const user = users.get(userId)
      if (!user) return false
      for (const account of accounts.get(userId)?.values() ?? []) identities.delete(identityKey(account))
      const address = verifiedAddress(user)
      if (address !== null && addresses.get(address) === userId) addresses.delete(address)
      accounts.delete(userId)
      forget(userId)
      users.delete(userId)
      return true
    },
    ...factors,
  }
  return Object.freeze(store)
}

/** One string per identity; JSON keeps the three parts apart whatever they hold. */
const identityKey = ({ provider, issuer, subject }: IdentityKey) => JSON.stringify([provider, issuer, subject])

const verifiedAddress = (user: User) =>
  user.email !== null && user.emailVerified !== null ? user.email.toLowerCase() : null

const copyDate = (date: Date | null) => (date === null ? null : new Date(date.getTime()))

const copyOrNull = <T>(value: T | undefined, copy: (value: T) => T) => (value === undefined ? null : copy(value))

function copyUser(user: User): User {
  const { id, name, email, emailVerified, image, createdAt } = user
  return { id, name, email, emailVerified: copyDate(emailVerified), image, createdAt: new Date(createdAt.getTime()) }
}

function copyAccount(account: StoredAccount): StoredAccount {
  const { id, userId, provider, issuer, subject, type, label, linkedAt, lastUsedAt, passwordHash } = account
  return {
    id,
    userId,
    provider,
    issuer,
    subject,
    type,
    label,
    linkedAt: new Date(linkedAt.getTime()),
    lastUsedAt: copyDate(lastUsedAt),
    passwordHash: passwordHash ?? null,
  }
}
