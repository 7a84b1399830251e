import { ConfigurationError } from '../../infra/errors'
import { storeHealth } from '../../infra/store/health'
import { isRedisClient, redisRunner, type RedisClient, type RedisRunner } from '../../infra/store/redis'
import { isRecord } from '../../infra/util/object'
import { describe } from '../../infra/util/options'
import { claims, type Claims } from './redis-claims'
import { redisFactors } from './redis-factors'
import { accountJson, parseAccount, parseUser, userJson, verifiedAddress } from './redis-records'
import { CREATE, DELETE, LINK, REPLACE_FIELD, UNLINK } from './redis-scripts'
import { userSlot, type UserSlot } from './redis-user'
import type { AccountStore, CreateUserResult, IdentityKey, LinkAccountResult, StoredAccount, User } from './store'

export interface RedisAccountsOptions {
  /** Prefix of every key: 1 to 64 letters, digits, '_', '-', '.' or ':'. Default `auth:` (the package's `redisKeyPrefix`). */
  prefix?: string
}

const PREFIX = /^[\w:.-]{1,64}$/

/**
 * The longest a command waits for Redis, so that a store call never hangs on a Redis that stopped
 * answering; the feature's own deadline (`storeTimeout`) is shorter and is what a request sees.
 */
const COMMAND_DEADLINE_MS = 10_000

/**
 * How often setPasswordHash reads and writes again when the account changed in between (a sign-in's
 * touch); each lost attempt means another write won, so a store that gets this far is broken.
 */
const SET_ATTEMPTS = 5

/**
 * Accounts in Redis (single or Cluster), shared by every instance.
 * - Per user, in one hash slot (`{u:<SHA-256 of the id>}`): `user` (JSON), `ways` (a hash: account
 *   id → JSON, the user's ways in), `pending` (accounts written but not yet settled), and the
 *   second factors' `factors` and `codes` (./redis-factors.ts).
 * - Per identity, a claim: `id:<SHA-256 of [provider, issuer, subject]>` → [user id, account id];
 *   per verified address, a claim: `em:<SHA-256 of the lower-case address>` → user id.
 * An account is written pending, then its identity is claimed (SET NX), then it is settled into
 * `ways`; a user is written before its claims. So a claim always names records written before it,
 * and a crash between two steps leaves at most a user or an account no claim names (no way in, not
 * counted by unlink), or a claim that names nothing, which reads as no account and is taken over by
 * the next claimer. Uniqueness is SET NX's; "never the last way in" is one script over the user's slot.
 * A touch or a new password hash replaces an account's JSON only if it is still the value read.
 */
export function redisAccounts(redis: RedisClient, options: RedisAccountsOptions = {}): AccountStore {
  if (!isRedisClient(redis))
    throw new ConfigurationError(
      `redisAccounts(redis) takes the app's ioredis client: \`new Redis(url)\` or \`new Cluster(nodes)\`; got ${describe(redis)}`,
    )
  if (!isRecord(options)) throw new ConfigurationError('redisAccounts(redis, options): options must be an object')
  for (const key of Object.keys(options))
    if (key !== 'prefix')
      throw new ConfigurationError(
        `redisAccounts(redis, options): unknown option \`${key}\`; its one option is \`prefix\` (such as 'myapp:auth:')`,
      )
  const prefix = options.prefix ?? 'auth:'
  if (typeof prefix !== 'string' || !PREFIX.test(prefix))
    throw new ConfigurationError(
      `redisAccounts(redis, { prefix }): \`prefix\` must be 1 to 64 letters, digits, '_', '-', '.' or ':' (such as 'myapp:auth:'); got ${describe(prefix)}`,
    )
  // The feature logs the store's outages (and adds its deadline): this runner stays silent.
  return redisAccountStore(
    redisRunner(
      redis,
      prefix,
      COMMAND_DEADLINE_MS,
      storeHealth(() => undefined, 'Redis'),
    ),
  )
}

export function redisAccountStore(redis: RedisRunner): AccountStore {
  const slot = userSlot(redis)
  const { keys, evalOn, getUser } = slot
  const { identity, address } = claims(redis, slot)
  const writes = { redis, slot, identity, address }
  const store: AccountStore = {
    findAccount: (key: IdentityKey) => identity.holder(key),
    getUser,
    findUserByVerifiedEmail: (email: string) => address.holder(email.toLowerCase()),
    createUser: (user, account) => createUser(writes, user, account),
    linkAccount: (account) => linkAccount(writes, account),
    async unlinkAccount(userId, accountId, keptElsewhere) {
      const elsewhere = Number.isFinite(keptElsewhere) ? Math.max(0, Math.floor(keptElsewhere)) : 0
      const answer = await evalOn([keys(userId)[1]], UNLINK, accountId, elsewhere)
      const [outcome, removed] = Array.isArray(answer) ? (answer as unknown[]) : []
      if (outcome === 0) return 'missing'
      if (outcome === 1) return 'last'
      const account = parseAccount(removed)
      if (account) await identity.release(account)
      return 'unlinked'
    },
    async listAccounts(userId) {
      const found = (await redis.run((client) => client.hvals(keys(userId)[1]))).map(parseAccount)
      return found
        .filter((account): account is StoredAccount => account?.userId === userId)
        .sort((a, b) => a.linkedAt.getTime() - b.linkedAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    },
    async touchAccount(userId, accountId, at) {
      const ways = keys(userId)[1]
      const before = await redis.run((client) => client.hget(ways, accountId))
      const account = parseAccount(before)
      if (before === null || account?.userId !== userId) return
      // Only over the value read: a touch never brings back an account unlinked meanwhile.
      await evalOn([ways], REPLACE_FIELD, accountId, before, accountJson({ ...account, lastUsedAt: at }))
    },
    async setPasswordHash(userId, accountId, hash) {
      const ways = keys(userId)[1]
      // Only over the value read, as a touch: an account unlinked or a user deleted meanwhile is
      // never brought back. A touch between our read and write changed it: read it again.
      for (let attempt = 0; attempt < SET_ATTEMPTS; attempt++) {
        const before = await redis.run((client) => client.hget(ways, accountId))
        const account = parseAccount(before)
        if (before === null || account?.userId !== userId) return false
        const after = accountJson({ ...account, passwordHash: hash })
        if ((await evalOn([ways], REPLACE_FIELD, accountId, before, after)) === 1) return true
      }
      throw new Error('setPasswordHash: the account kept changing under the write')
    },
    async deleteUser(userId) {
      const found = await evalOn(keys(userId), DELETE)
      const [kept, ...accounts] = Array.isArray(found) ? (found as unknown[]) : []
      const user = parseUser(kept)
      for (const account of accounts.map(parseAccount)) if (account?.userId === userId) await identity.release(account)
      const email = user && verifiedAddress(user)
      if (email) await address.release(email, userId)
      return kept !== undefined
    },
    ...redisFactors(slot),
  }
  return Object.freeze(store)
}

interface Writes {
  readonly redis: RedisRunner
  readonly slot: UserSlot
  readonly identity: Claims['identity']
  readonly address: Claims['address']
}

/** The user's keys first, then the identity's claim, then the address's; a lost claim undoes what came before. */
async function createUser(
  { redis, slot, identity, address }: Writes,
  user: User,
  account: StoredAccount | null,
): Promise<CreateUserResult> {
  const keys = slot.keys(user.id)
  const created = await slot.evalOn(
    keys,
    CREATE,
    userJson(user),
    account?.id ?? '',
    account ? accountJson(account) : '',
  )
  if (created !== 1) return { kind: 'userExists' }
  const undo = () => redis.run((client) => client.del(...keys))
  if (account) {
    const claimed = await identity.claim(account)
    if (claimed.holder) {
      await undo()
      return { kind: 'identityTaken', account: claimed.holder }
    }
  }
  const email = verifiedAddress(user)
  if (email !== null) {
    const claimed = await address.claim(email, user.id)
    if (claimed.holder) {
      if (account) await identity.release(account)
      await undo()
      return { kind: 'emailTaken', user: claimed.holder }
    }
  }
  if (account && !(await slot.settle(account))) throw new Error('a new account went missing while it was created')
  return { kind: 'created', user, account }
}

/** The account pending in the user's keys, then the identity's claim, then the account settled. */
async function linkAccount({ redis, slot, identity }: Writes, account: StoredAccount): Promise<LinkAccountResult> {
  const pending = slot.keys(account.userId)[2]
  const linked = await slot.evalOn(slot.keys(account.userId), LINK, account.id, accountJson(account))
  if (linked === 0) return { kind: 'noUser' }
  if (linked !== 1) throw new Error('linkAccount: the user has an account with this id already')
  const claimed = await identity.claim(account)
  if (claimed.holder) {
    await redis.run((client) => client.hdel(pending, account.id))
    return { kind: 'identityTaken', account: claimed.holder }
  }
  if (await slot.settle(account)) return { kind: 'linked', account }
  // The user was deleted meanwhile, and the account with them: the claim names nothing; let it go.
  await identity.release(account)
  return { kind: 'noUser' }
}
