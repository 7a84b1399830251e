import { boundedCache } from '../../infra/util/cache'

/** What is kept for one sign-in link: whose it is and when it ends. The token itself never is. */
export interface VerificationRecord {
  /** The normalised address the link was sent to. */
  readonly identifier: string
  /** Seconds since the epoch. */
  readonly expires: number
  /**
   * What another feature's link carries beside the address (a password sign-up's sealed details),
   * opaque to the store, which keeps it as it is. Absent for a sign-in link.
   */
  readonly data?: string
}

/**
 * Where e-mail sign-in tokens wait to be used, by the keyed hash of the token (a dump of the store
 * gives no usable link). `take` is atomic, get-and-delete, so two uses of one link make at most
 * one session. An implementation keeps a record no longer than its `expires`, and keeps its `data`
 * (when there is one) as it was given.
 */
export interface VerificationStore {
  put(key: string, record: VerificationRecord): Promise<void>
  /** The record, removed in the same step; null when there is none (or it has expired). */
  take(key: string): Promise<VerificationRecord | null>
  remove(key: string): Promise<void>
}

/**
 * The embedded default: tokens in this process's memory, at most `max` of them (the oldest go
 * first). They do not survive a restart and are not shared between instances (the service says so
 * at start-up); the Redis store keeps them across both.
 */
export function memoryVerificationStore(max = 10_000): VerificationStore {
  const records = boundedCache<string, VerificationRecord>(max)
  return Object.freeze({
    async put(key: string, record: VerificationRecord) {
      const ttl = record.expires * 1000 - Date.now()
      if (ttl > 0) records.set(key, record, { ttl })
    },
    async take(key: string) {
      const record = records.get(key)
      records.delete(key)
      return record !== undefined && record.expires * 1000 > Date.now() ? record : null
    },
    async remove(key: string) {
      records.delete(key)
    },
  })
}
