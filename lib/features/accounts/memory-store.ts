import type { AccountStore, IdentityKey, StoredAccount, StoredFactor, User } from './store'

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
  /** Per user, their second factors by id, the oldest first, each with its codes and last spent step. */
  const factors = new Map<string, Map<string, KeptFactor>>()

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
    ...factorMethods(users, factors),
    async deleteUser(userId) {
      const user = users.get(userId)
      if (!user) return false
      factors.delete(userId)
      for (const account of accounts.get(userId)?.values() ?? []) identities.delete(identityKey(account))
      const address = verifiedAddress(user)
      if (address !== null && addresses.get(address) === userId) addresses.delete(address)
      accounts.delete(userId)
      users.delete(userId)
      return true
    },
  }
  return Object.freeze(store)
}

/** The factor methods of memoryAccounts(), over its users and its factors per user. */
function factorMethods(
  users: ReadonlyMap<string, User>,
  factors: Map<string, Map<string, KeptFactor>>,
): Required<Pick<AccountStore, FactorMethod>> {
  const factorOf = (userId: string, factorId: string) => factors.get(userId)?.get(factorId)
  return {
    async addFactor(factor, codeHashes = []) {
      if (!users.has(factor.userId)) return 'noUser'
      const own = factors.get(factor.userId) ?? new Map<string, KeptFactor>()
      factors.set(factor.userId, own)
      own.set(factor.id, { factor: copyFactor(factor), codes: new Set(codeHashes), step: -1 })
      return 'added'
    },
    async listFactors(userId) {
      return [...(factors.get(userId)?.values() ?? [])].map(factorOut)
    },
    async enableFactor(userId, factorId) {
      const kept = factorOf(userId, factorId)
      if (!kept) return false
      kept.factor = { ...kept.factor, enabled: true }
      return true
    },
    async removeFactor(userId, factorId) {
      return factors.get(userId)?.delete(factorId) ?? false
    },
    async spendTotpStep(userId, factorId, step) {
      const kept = factorOf(userId, factorId)
      if (!kept || !(step > kept.step)) return false
      kept.step = step
      kept.factor = { ...kept.factor, lastUsedAt: new Date() }
      return true
    },
    async spendRecoveryCode(userId, factorId, codeHash) {
      const kept = factorOf(userId, factorId)
      if (!kept?.codes.delete(codeHash)) return false
      kept.factor = { ...kept.factor, lastUsedAt: new Date() }
      return true
    },
    async replaceRecoveryCodes(userId, factorId, codeHashes) {
      const kept = factorOf(userId, factorId)
      if (!kept) return false
      kept.codes = new Set(codeHashes)
      return true
    },
  }
}

type FactorMethod =
  | 'addFactor'
  | 'listFactors'
  | 'enableFactor'
  | 'removeFactor'
  | 'spendTotpStep'
  | 'spendRecoveryCode'
  | 'replaceRecoveryCodes'

/** A factor as memory keeps it: the record, its unused code hashes, the last TOTP step spent. */
interface KeptFactor {
  factor: StoredFactor
  codes: Set<string>
  step: number
}

function copyFactor(factor: StoredFactor): StoredFactor {
  const { id, userId, type, label, secret, enabled, createdAt, lastUsedAt } = factor
  return {
    id,
    userId,
    type,
    label,
    secret,
    enabled,
    createdAt: new Date(createdAt.getTime()),
    lastUsedAt: copyDate(lastUsedAt),
    codesLeft: 0,
  }
}

function factorOut({ factor, codes }: KeptFactor): StoredFactor {
  return { ...copyFactor(factor), codesLeft: factor.type === 'recovery' ? codes.size : 0 }
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
