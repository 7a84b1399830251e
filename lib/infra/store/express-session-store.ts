/**
 * The part of express-session's `Store` the package uses, so that the ecosystem's stores
 * (connect-redis, connect-pg-simple, connect-mongo, …) work as they are: what `session.store` takes,
 * and `redisSessionStore()` returns. The database record store (lib/core/session/database-store.ts)
 * keeps its records in one, each as an object with `cookie.expires`, from which such stores take
 * their expiry.
 */
export interface ExpressSessionStore {
  get(sid: string, callback: (error: unknown, session?: unknown) => void): void
  set(sid: string, session: object, callback?: (error?: unknown) => void): void
  destroy(sid: string, callback?: (error?: unknown) => void): void
}

export function isExpressSessionStore(value: unknown): value is ExpressSessionStore {
  if (typeof value !== 'object' || value === null) return false
  const store = value as Record<string, unknown>
  return ['get', 'set', 'destroy'].every((name) => typeof store[name] === 'function')
}

/** A store's callback API as a promise: settled once, whatever the store does (throws, calls back twice). */
export function callStore<T>(start: (callback: (error: unknown, value?: T) => void) => void): Promise<T | undefined> {
  return new Promise((resolve, reject) => {
    let settled = false
    const callback = (error: unknown, value?: T) => {
      if (settled) return
      settled = true
      if (error) reject(error instanceof Error ? error : new Error('the session store failed'))
      else resolve(value)
    }
    try {
      start(callback)
    } catch (error) {
      callback(error ?? new Error('the session store threw'))
    }
  })
}
