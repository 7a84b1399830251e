import type { Callbacks, Session, SessionRecord } from '../../infra/config/types'
import type { Log } from '../../infra/logger'
import { isRecord, kindOf } from '../../infra/util/object'

/**
 * The record as the app's code receives it (callbacks, events): without `tokens`, where the
 * provider's tokens are kept (without Redis, the sealed set itself): nothing of a token reaches the
 * app's code but through getAccessToken. The record itself when it keeps none (no copy).
 */
export function appRecord<R extends SessionRecord | null>(record: R): R {
  if (record === null || record.tokens === undefined) return record
  const { tokens: _where, ...visible } = record
  return visible as R
}

/** The default client-safe object: the user's name, e-mail and picture, and the expiry. Nothing else. */
export function defaultSession(record: SessionRecord): Session {
  const session: Session = {
    user: { name: record.user.name ?? null, email: record.user.email ?? null, image: record.user.image ?? null },
    expires: new Date(record.expiresAt * 1000).toISOString(),
  }
  // NextAuth's convention for provider tokens that could not be refreshed; nothing else of them.
  if (record.tokenError) session.error = 'RefreshAccessTokenError'
  return session
}

/**
 * The object the client sees: the default, reshaped by the app's `session` callback when it has
 * one. A callback that answers anything but a plain object fails closed: null (no session), logged.
 * Synchronous when the callback is (the hot path of `GET /session` then makes no promise); a
 * callback that throws, synchronously or not, rejects the promise, as an async callback's would.
 */
export function clientSession(
  record: SessionRecord,
  callbacks: Readonly<Callbacks>,
  log: Log,
  trigger: 'get' | 'update' = 'get',
  newData?: unknown,
): Session | null | Promise<Session | null> {
  const session = defaultSession(record)
  if (!callbacks.session) return session
  // The callback sees whether the tokens failed (`tokenError`), never where they are (`tokens`).
  try {
    const shaped: unknown = callbacks.session({ session, record: appRecord(record), trigger, newData })
    // What `await` would do with a thenable; reading `then` may throw too (a hostile getter), and
    // so may checking the answer (a revoked Proxy).
    if (isThenable(shaped)) return Promise.resolve(shaped).then((answer: unknown) => checked(answer, log))
    return checked(shaped, log)
  } catch (error) {
    // Whatever the callback threw reaches the app's error handler as itself, as an async callback's
    // rejection does.
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
    return Promise.reject(error)
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  )
}

function checked(shaped: unknown, log: Log): Session | null {
  if (isRecord(shaped)) return shaped as Session
  log(
    'error',
    'callback.error',
    `callbacks.session answered ${kindOf(shaped)}, not a session object: the request is answered as signed out`,
  )
  return null
}
