import { parseJsonObject } from '../../infra/util/json'
import type { ChallengeStore, PasskeyChanges, PasskeyStore, StoredPasskey } from './store'
import type { RedisRunner } from '../../infra/store/redis'

/** The most passkeys one user's list reads (a user with more sees the first ones). */
const MAX_LISTED = 100

/**
 * Passkeys in Redis: one key per credential (`pk:<id>`, JSON, created with SET NX so that a
 * credential ID is registered once), a set of IDs per user (`pku:<user id>`), and the user's handle
 * (`pkh:<user id>`, SET NX). One key per command, so that it works on Redis Cluster too.
 */
export function redisPasskeyStore(redis: RedisRunner): PasskeyStore {
  const passkeyKey = (id: string) => redis.key('pk', id)
  const userKey = (userId: string) => redis.key('pku', userId)
  const get = async (id: string) => parsePasskey(await redis.run((client) => client.get(passkeyKey(id))))
  return Object.freeze({
    async create(passkey: StoredPasskey) {
      const set = await redis.run((client) => client.set(passkeyKey(passkey.id), JSON.stringify(passkey), 'NX'))
      if (set !== 'OK') return false
      await redis.run((client) => client.sadd(userKey(passkey.userId), passkey.id))
      return true
    },
    get,
    async listByUser(userId: string) {
      const ids = (await redis.run((client) => client.smembers(userKey(userId)))).slice(0, MAX_LISTED)
      const found = await Promise.all(ids.map(get))
      return found.filter((passkey): passkey is StoredPasskey => passkey !== null && passkey.userId === userId)
    },
    async update(id: string, changes: PasskeyChanges) {
      const passkey = await get(id)
      if (!passkey) return
      const value = JSON.stringify({ ...passkey, ...changes })
      await redis.run((client) => client.set(passkeyKey(id), value, 'XX'))
    },
    async delete(id: string) {
      const passkey = await get(id)
      await redis.run((client) => client.del(passkeyKey(id)))
      if (passkey) await redis.run((client) => client.srem(userKey(passkey.userId), id))
    },
    async userHandle(userId: string, fresh: string) {
      const key = redis.key('pkh', userId)
      const set = await redis.run((client) => client.set(key, fresh, 'NX'))
      if (set === 'OK') return fresh
      return (await redis.run((client) => client.get(key))) ?? fresh
    },
  })
}

/** Challenges in Redis, spent with GETDEL (Redis 6.2 or later): once, whichever instance asks. */
export function redisChallengeStore(redis: RedisRunner): ChallengeStore {
  const keyOf = (key: string) => redis.key('pkc', key)
  return Object.freeze({
    async put(key: string, value: string, ttlMs: number) {
      await redis.run((client) => client.set(keyOf(key), value, 'PX', Math.max(1, Math.ceil(ttlMs))))
    },
    async take(key: string) {
      return redis.run((client) => client.getdel(keyOf(key)))
    },
  })
}

const DEVICE_TYPES: ReadonlySet<unknown> = new Set(['singleDevice', 'multiDevice'])

/** What we wrote, or null for anything else (a value someone else put under our prefix). */
export function parsePasskey(value: string | null): StoredPasskey | null {
  const parsed = value === null ? null : parseJsonObject(value)
  if (!parsed) return null
  const { id, userId, userHandle, publicKey, counter, transports, name, createdAt, lastUsedAt } = parsed
  const { backedUp, deviceType, aaguid, user } = parsed
  const strings = [id, userId, userHandle, publicKey, name, aaguid].every((field) => typeof field === 'string')
  if (
    !strings ||
    typeof counter !== 'number' ||
    typeof createdAt !== 'number' ||
    !(lastUsedAt === null || typeof lastUsedAt === 'number') ||
    typeof backedUp !== 'boolean' ||
    !DEVICE_TYPES.has(deviceType) ||
    !Array.isArray(transports) ||
    !transports.every((transport) => typeof transport === 'string') ||
    typeof user !== 'object' ||
    user === null
  )
    return null
  const { name: userName, email, image } = user as Record<string, unknown>
  const text = (field: unknown) => (typeof field === 'string' ? field : null)
  return {
    id: id as string,
    userId: userId as string,
    userHandle: userHandle as string,
    publicKey: publicKey as string,
    counter,
    transports: transports,
    name: name as string,
    createdAt,
    lastUsedAt,
    backedUp,
    deviceType: deviceType as StoredPasskey['deviceType'],
    aaguid: aaguid as string,
    user: { name: text(userName), email: text(email), image: text(image) },
  }
}
