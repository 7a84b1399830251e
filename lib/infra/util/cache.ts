import { LRUCache } from 'lru-cache'

/**
 * A least-recently-used cache of at most `entries` entries that takes memory as it fills.
 * lru-cache given `max` sets aside its arrays for `max` entries when it is built (8.8 MB for two
 * caches of 100 000 with a TTL, measured), whether or not they are ever used; a size limit, with
 * each entry counted as one, bounds it the same way and grows its arrays with use. `evicted` hears
 * of each entry pushed out to make room (not of one replaced, deleted or past its TTL).
 */
export function boundedCache<K extends string, V extends NonNullable<unknown>>(
  entries: number,
  ttlMs?: number,
  evicted?: (value: V, key: K) => void,
): LRUCache<K, V> {
  return new LRUCache<K, V>({
    maxSize: entries,
    sizeCalculation: () => 1,
    ...(ttlMs === undefined ? {} : { ttl: ttlMs }),
    ...(evicted === undefined
      ? {}
      : { dispose: (value: V, key: K, reason: LRUCache.DisposeReason) => reason === 'evict' && evicted(value, key) }),
  })
}

/**
 * The same for entries of different sizes: at most `maxSize` in all, and at most `entries` entries
 * (each counts at least `maxSize / entries`), no entry larger than `maxEntrySize`, none kept longer
 * than `ttlMs` after it was first set.
 */
export function sizedCache<K extends string, V extends NonNullable<unknown>>(
  limits: { entries: number; maxSize: number; maxEntrySize?: number; ttlMs?: number },
  size: (value: V, key: K) => number,
): LRUCache<K, V> {
  const least = Math.ceil(limits.maxSize / limits.entries)
  return new LRUCache<K, V>({
    // Rounded up to a whole `least` an entry, so that `entries` of the least size fit exactly.
    maxSize: least * limits.entries,
    ...(limits.maxEntrySize === undefined ? {} : { maxEntrySize: Math.max(limits.maxEntrySize, least) }),
    sizeCalculation: (value, key) => Math.max(least, size(value, key)),
    ...(limits.ttlMs === undefined ? {} : { ttl: limits.ttlMs }),
  })
}
