import { AuthError } from '../errors'
import { withDeadline } from '../util/promise-deadline'
import type { StoreHealth } from './health'

/** withDeadline's message names this, so that a late answer is told from any other failure. */
const LATE = 'the store'

/** A client found not connected; its message (`the client is reconnecting`) is what the log says. */
export class NotConnected extends Error {
  override name = 'NotConnected'
  constructor(status: string) {
    super(`the client is ${status}`)
  }
}

/**
 * One call to a store (a Redis command, a session store's method) under a deadline, so that no
 * request waits longer than `timeout` ms on it: a failure or a late answer is a 503
 * (`ServiceUnavailable`), and the outage is logged once.
 */
export async function guarded<T>(work: () => Promise<T>, timeout: number, health: StoreHealth): Promise<T> {
  try {
    const answer = await withDeadline(work(), timeout, LATE)
    health.ok()
    return answer
  } catch (error) {
    const reason = reasonOf(error, timeout)
    health.failed(reason)
    throw unavailable(reason, error)
  }
}

/**
 * What the log may say of a failure: our deadline, or an error code of the usual shape
 * (`ECONNREFUSED`), else the error's class. Never its message, which a store may fill with a key
 * or the start of a stored value.
 */
function reasonOf(error: unknown, timeout: number): string {
  const late = `no answer within ${timeout} ms`
  if (error instanceof Error && error.message === `${LATE}: ${late}`) return late
  if (error instanceof NotConnected) return error.message
  const code = (error as { code?: unknown } | null)?.code
  if (typeof code === 'string' && /^[A-Z][A-Z0-9_]{1,31}$/.test(code)) return code
  // A store's own error class may be named anything: a name of the usual shape only.
  return error instanceof Error && /^\w{1,40}$/.test(error.name) ? error.name : 'a failure'
}

export function unavailable(reason: string, cause?: unknown): AuthError {
  return new AuthError('ServiceUnavailable', `the session store did not answer: ${reason}`, { cause })
}
