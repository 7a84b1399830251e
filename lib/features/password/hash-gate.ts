/**
 * Password hashing is a lever for denial of service: each hash takes tens of milliseconds of a core
 * and 19 MiB. So every hash and verification goes through one gate: at most `limit` at once (the
 * machine's cores by default), at most `queue` more waiting their turn, none of them longer than
 * `wait` milliseconds. Past that the caller answers 429 at once: a flood of sign-ins costs the
 * process `limit` cores' worth of hashing and no more, and `GET /session` keeps being served.
 */
export interface HashGate {
  /** Runs `work` when a slot is free (waiting in the queue at most `wait` ms); null when the queue is full or the wait ran out. */
  run<T>(work: () => Promise<T>): Promise<T | null>
  readonly limit: number
  /** Hashes running now (for the bench and the specs). */
  readonly busy: number
}

interface Waiter {
  readonly start: () => void
  readonly timer: NodeJS.Timeout
}

export function hashGate(options: { limit: number; queue: number; wait: number }): HashGate {
  const { limit, queue, wait } = options
  let running = 0
  const waiting: Waiter[] = []

  function release(): void {
    const next = waiting.shift()
    if (next === undefined) {
      running--
      return
    }
    clearTimeout(next.timer)
    next.start()
  }

  async function run<T>(work: () => Promise<T>): Promise<T | null> {
    if (running >= limit) {
      if (waiting.length >= queue) return null
      const admitted = await new Promise<boolean>((resolve) => {
        const waiter: Waiter = {
          start: () => resolve(true),
          timer: setTimeout(() => {
            const at = waiting.indexOf(waiter)
            if (at !== -1) waiting.splice(at, 1)
            resolve(false)
          }, wait),
        }
        waiting.push(waiter)
      })
      // Admitted: the slot was handed over by release(), `running` unchanged.
      if (!admitted) return null
    } else {
      running++
    }
    try {
      return await work()
    } finally {
      release()
    }
  }

  return {
    run,
    limit,
    get busy() {
      return running
    },
  }
}
