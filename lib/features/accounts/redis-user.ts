import { digest } from '../../infra/crypto/mac'
import type { RedisRunner } from '../../infra/store/redis'
import { parseAccount, parseUser } from './redis-records'
import { SETTLE } from './redis-scripts'
import type { StoredAccount, User } from './store'

/** One user's keys in Redis and the reads of them, for ./redis-store.ts and ./redis-claims.ts. */
export interface UserSlot {
  /**
   * The user's keys (`user`, `ways`, `pending`, and their second factors': `factors`, `codes`), in
   * one hash slot: `{u:<SHA-256 of the id>}`.
   */
  readonly keys: (
    userId: string,
  ) => readonly [user: string, ways: string, pending: string, factors: string, codes: string]
  /** Runs a script on keys of one slot. */
  readonly evalOn: (keys: readonly string[], script: string, ...args: Array<string | number>) => Promise<unknown>
  readonly getUser: (userId: string) => Promise<User | null>
  /** The account as it stands, a pending one whose claim was won settled first; null when there is none. */
  readonly settle: (account: Pick<StoredAccount, 'userId' | 'id'>) => Promise<StoredAccount | null>
}

export function userSlot(redis: RedisRunner): UserSlot {
  const keys = (userId: string) => {
    const tag = `{u:${digest(userId)}}`
    const key = (name: string) => redis.key('acct', tag, name)
    return [key('user'), key('ways'), key('pending'), key('factors'), key('codes')] as const
  }
  const evalOn = (on: readonly string[], script: string, ...args: Array<string | number>) =>
    redis.run((client) => client.eval(script, on.length, ...on, ...args))
  return Object.freeze({
    keys,
    evalOn,
    async getUser(userId: string) {
      const user = parseUser(await redis.run((client) => client.get(keys(userId)[0])))
      return user?.id === userId ? user : null
    },
    async settle({ userId, id }: Pick<StoredAccount, 'userId' | 'id'>) {
      const [, ways, pending] = keys(userId)
      const kept = parseAccount(await redis.run((client) => client.hget(ways, id)))
      const account = kept ?? parseAccount(await evalOn([ways, pending], SETTLE, id))
      return account?.userId === userId && account.id === id ? account : null
    },
  })
}
