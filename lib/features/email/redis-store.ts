import type { VerificationRecord, VerificationStore } from './store'
import { parseJsonObject } from '../../infra/util/json'
import type { RedisRunner } from '../../infra/store/redis'

/**
 * E-mail sign-in links in Redis: one key per link (the keyed hash of the token), expiring with the
 * link, spent with GETDEL (Redis 6.2 or later) so that two uses of one link make at most one session.
 */
export function redisVerificationStore(redis: RedisRunner): VerificationStore {
  const keyOf = (key: string) => redis.key('vt', key)
  return Object.freeze({
    async put(key: string, record: VerificationRecord) {
      const ttl = record.expires * 1000 - Date.now()
      if (ttl <= 0) return
      const { identifier, expires, data } = record
      const value = JSON.stringify(data === undefined ? { identifier, expires } : { identifier, expires, data })
      await redis.run((client) => client.set(keyOf(key), value, 'PX', Math.ceil(ttl)))
    },
    async take(key: string) {
      const value = await redis.run((client) => client.getdel(keyOf(key)))
      return value === null ? null : parseRecord(value)
    },
    async remove(key: string) {
      await redis.run((client) => client.del(keyOf(key)))
    },
  })
}

/** What we wrote, or null for anything else (a value someone else put under our prefix). */
function parseRecord(value: string): VerificationRecord | null {
  const parsed = parseJsonObject(value)
  if (!parsed) return null
  const { identifier, expires, data } = parsed
  if (typeof identifier !== 'string' || typeof expires !== 'number' || expires * 1000 <= Date.now()) return null
  if (data === undefined) return { identifier, expires }
  return typeof data === 'string' ? { identifier, expires, data } : null
}
