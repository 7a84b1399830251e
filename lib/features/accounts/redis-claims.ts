import { digest } from '../../infra/crypto/mac'
import type { RedisRunner } from '../../infra/store/redis'
import { sameIdentity, verifiedAddress } from './redis-records'
import { RELEASE, TAKE_OVER } from './redis-scripts'
import type { UserSlot } from './redis-user'
import type { IdentityKey, StoredAccount, User } from './store'

/** How often a claimer tries again when the claim changes hands under it; a store that gets this far is broken. */
const ATTEMPTS = 5

/** What a claim answers: the holder, or null when the caller holds it now. */
type Claimed<T> = { readonly holder: T | null }

/**
 * The claims of the Redis account store (./redis-store.ts): one key per identity and per verified
 * address, each taken with SET NX, so that exactly one claimer wins whatever the timing. A claim
 * names what holds it (a user's account, a user); one that names nothing (its user was deleted, or
 * a step failed half-way) reads as unclaimed and is taken over by compare-and-set, by one claimer.
 * Keys hold the SHA-256 of the parts (an identity's three as a JSON array): fixed-length, never
 * colliding, and with no address or subject in them.
 */
export type Claims = ReturnType<typeof claims>

export function claims(redis: RedisRunner, { settle, getUser }: UserSlot) {
  const identityKey = ({ provider, issuer, subject }: IdentityKey) =>
    redis.key('acct', 'id', digest(JSON.stringify([provider, issuer, subject])))
  const identityValue = ({ userId, id }: StoredAccount) => JSON.stringify([userId, id])
  const addressKey = (address: string) => redis.key('acct', 'em', digest(address))
  const get = (key: string) => redis.run((client) => client.get(key))

  /** The account a claim's value names, if it is there and is this identity's. */
  async function accountNamed(value: string | null, key: IdentityKey): Promise<StoredAccount | null> {
    const named = parseNames(value)
    const account = named && (await settle({ userId: named[0], id: named[1] }))
    return account && sameIdentity(account, key) ? account : null
  }

  /** The user a claim's value names, if it is there and this address is its verified one. */
  async function userNamed(userId: string | null, address: string): Promise<User | null> {
    const user = userId === null ? null : await getUser(userId)
    return user && verifiedAddress(user) === address ? user : null
  }

  async function claim<T>(key: string, value: string, holderOf: (current: string) => Promise<T | null>) {
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      if ((await redis.run((client) => client.set(key, value, 'NX'))) === 'OK') return { holder: null }
      const current = await get(key)
      if (current === null) continue
      if (current === value) return { holder: null }
      const holder = await holderOf(current)
      if (holder !== null) return { holder }
      if ((await redis.run((client) => client.eval(TAKE_OVER, 1, key, current, value))) === 1) return { holder: null }
    }
    throw new Error('an account claim kept changing hands')
  }

  const release = (key: string, value: string) => redis.run((client) => client.eval(RELEASE, 1, key, value))

  return {
    identity: {
      holder: async (key: IdentityKey) => accountNamed(await get(identityKey(key)), key),
      claim: (account: StoredAccount): Promise<Claimed<StoredAccount>> =>
        claim(identityKey(account), identityValue(account), (current) => accountNamed(current, account)),
      release: (account: StoredAccount) => release(identityKey(account), identityValue(account)),
    },
    address: {
      /** `address` in lower case. */
      holder: async (address: string) => userNamed(await get(addressKey(address)), address),
      claim: (address: string, userId: string): Promise<Claimed<User>> =>
        claim(addressKey(address), userId, (current) => userNamed(current, address)),
      release: (address: string, userId: string) => release(addressKey(address), userId),
    },
  }
}

/** A claim's [user id, account id], or null for anything else. */
function parseNames(value: string | null): [string, string] | null {
  if (value === null) return null
  try {
    const parsed: unknown = JSON.parse(value)
    return Array.isArray(parsed) && parsed.length === 2 && parsed.every((part) => typeof part === 'string')
      ? [parsed[0] as string, parsed[1] as string]
      : null
  } catch {
    return null
  }
}
