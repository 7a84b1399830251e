import type { Log } from '../logger'

/**
 * Whether the server-side store answers, as the last command found it. An outage is logged once
 * when it begins and once when it ends, never per request: a store that is down for a minute under
 * load would otherwise fill the log.
 */
export interface StoreHealth {
  ok(): void
  failed(reason: string): void
}

export function storeHealth(log: Log, what: string): StoreHealth {
  let down = false
  return Object.freeze({
    ok() {
      if (!down) return
      down = false
      log('info', 'store.recovered', `${what} answers again`)
    },
    failed(reason: string) {
      if (down) return
      down = true
      // The reason is ioredis's or the store's own text (a host and port at most), never a key or a value.
      log(
        'error',
        'store.unavailable',
        `${what} does not answer: ${reason}; requests that need it get 503 until it does`,
      )
    },
  })
}
