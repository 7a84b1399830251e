import type { SessionData } from 'express-session'
import { ConfigurationError } from '../errors'
import { parseJsonObject } from '../util/json'
import { connectRedis } from '../util/lazy'
import type { ExpressSessionStore } from './express-session-store'
import { isRedisClient, type RedisClient } from './redis'

/**
 * JSON, except that a value that does not parse is no session (null) rather than an error: a
 * store error would be a 503 for that browser for as long as the value stays.
 */
const TOLERANT_JSON = {
  // connect-redis types the answer as a session; null is what its get() passes on for none.
  parse: (text: string) => parseJsonObject(text) as unknown as SessionData,
  stringify: (session: SessionData) => JSON.stringify(session),
}

export interface RedisSessionStoreOptions {
  /** Prepended to every session key. Default 'sess:'. */
  prefix?: string
}

/**
 * Returns an express-session store (`ExpressSessionStore`: connect-redis 8's `RedisStore`, the last
 * major that accepts ioredis; docs/session-stores.md) over an ioredis client or Cluster client:
 * what `session.store` takes, not one of the package's record stores (lib/core/session/record-store.ts).
 * Each entry is one key whose TTL follows its `cookie.expires`. `auth()` builds one itself for
 * `session.strategy: 'database'` with `redis` set, and keeps its records in it; this export is for
 * apps that want the same store elsewhere.
 */
export function redisSessionStore(client: RedisClient, options: RedisSessionStoreOptions = {}): ExpressSessionStore {
  if (!isRedisClient(client))
    throw new ConfigurationError(
      'redisSessionStore() takes an ioredis client: `new Redis(url)` or `new Cluster(nodes)`',
    )
  const { RedisStore } = connectRedis()
  return new RedisStore({ client, prefix: options.prefix ?? 'sess:', serializer: TOLERANT_JSON })
}
