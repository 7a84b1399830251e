import type {
  AccountStore,
  CreateUserResult,
  IdentityKey,
  LinkAccountResult,
  StoredAccount,
  UnlinkAccountResult,
  User,
} from './store'

const MEMORY = Symbol('memoryAccounts')

/** One key per identity: the parts length-prefixed, so that no two identities share one. */
function identityOf({ provider, issuer, subject }: IdentityKey): string {
  return `${provider.length}:${provider}${issuer.length}:${issuer}${subject}`
}

const copyUser = (user: User): User => ({
  ...user,
  emailVerified: user.emailVerified && new Date(user.emailVerified),
  createdAt: new Date(user.createdAt),
})
const copyAccount = (account: StoredAccount): StoredAccount => ({
  ...account,
  linkedAt: new Date(account.linkedAt),
  lastUsedAt: account.lastUsedAt && new Date(account.lastUsedAt),
})

/**
 * Accounts in this process's memory, for development and tests: lost when the process stops and
 * not shared between instances (auth() says so at start-up). Every method's work is synchronous,
 * so the store's rules hold under concurrent calls without locks.
 */
export function memoryAccounts(): AccountStore {
  const users = new Map<string, User>()
  /** Account id → account. */
  const accounts = new Map<string, StoredAccount>()
  /** Identity → account id. */
  const identities = new Map<string, string>()
  /** Lower-case verified address → user id. */
  const addresses = new Map<string, string>()
  const ofUser = (userId: string) => [...accounts.values()].filter((account) => account.userId === userId)
  const address = (user: User) => (user.emailVerified && user.email ? user.email.toLowerCase() : null)

  const store: AccountStore & { [MEMORY]: true } = {
    [MEMORY]: true,
    async findAccount(identity) {
      const id = identities.get(identityOf(identity))
      const account = id === undefined ? undefined : accounts.get(id)
      return account ? copyAccount(account) : null
    },
    async getUser(userId) {
      const user = users.get(userId)
      return user ? copyUser(user) : null
    },
    async findUserByVerifiedEmail(email) {
      const id = addresses.get(email.toLowerCase())
      const user = id === undefined ? undefined : users.get(id)
      return user ? copyUser(user) : null
    },
    async createUser(user, account): Promise<CreateUserResult> {
      if (users.has(user.id)) return { kind: 'userExists' }
      const taken = account && identities.get(identityOf(account))
      if (taken) return { kind: 'identityTaken', account: copyAccount(accounts.get(taken)!) }
      const verified = address(user)
      const owner = verified === null ? undefined : addresses.get(verified)
      if (owner !== undefined) return { kind: 'emailTaken', user: copyUser(users.get(owner)!) }
      users.set(user.id, copyUser(user))
      if (verified !== null) addresses.set(verified, user.id)
      if (account) {
        accounts.set(account.id, copyAccount(account))
        identities.set(identityOf(account), account.id)
      }
      return { kind: 'created', user: copyUser(user), account: account && copyAccount(account) }
    },
    async linkAccount(account): Promise<LinkAccountResult> {
      const taken = identities.get(identityOf(account))
      if (taken) return { kind: 'identityTaken', account: copyAccount(accounts.get(taken)!) }
      if (!users.has(account.userId)) return { kind: 'noUser' }
      accounts.set(account.id, copyAccount(account))
      identities.set(identityOf(account), account.id)
      return { kind: 'linked', account: copyAccount(account) }
    },
    async unlinkAccount(userId, accountId, keptElsewhere): Promise<UnlinkAccountResult> {
      const account = accounts.get(accountId)
      if (account?.userId !== userId) return 'missing'
      if (ofUser(userId).length - 1 + keptElsewhere < 1) return 'last'
      accounts.delete(accountId)
      identities.delete(identityOf(account))
      return 'unlinked'
    },
    async listAccounts(userId) {
      return ofUser(userId)
        .sort((a, b) => a.linkedAt.getTime() - b.linkedAt.getTime())
        .map(copyAccount)
    },
    async touchAccount(userId, accountId, at) {
      const account = accounts.get(accountId)
      if (account?.userId === userId) accounts.set(accountId, { ...account, lastUsedAt: new Date(at) })
    },
    async deleteUser(userId) {
      const user = users.get(userId)
      if (!user) return false
      for (const account of ofUser(userId)) {
        accounts.delete(account.id)
        identities.delete(identityOf(account))
      }
      const verified = address(user)
      if (verified !== null && addresses.get(verified) === userId) addresses.delete(verified)
      users.delete(userId)
      return true
    },
  }
  return store
}

/** Whether `store` is `memoryAccounts()`'s (auth() warns about it). */
export function isMemoryAccounts(store: AccountStore): boolean {
  return (store as Partial<Record<typeof MEMORY, true>>)[MEMORY] === true
}
