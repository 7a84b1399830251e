import type { Callbacks, Session, SessionRecord } from '../config/types'

/** The default client-safe object: the user's name, e-mail and picture, and the expiry. Nothing else. */
export function defaultSession(record: SessionRecord): Session {
  return {
    user: { name: record.user.name ?? null, email: record.user.email ?? null, image: record.user.image ?? null },
    expires: new Date(record.expiresAt * 1000).toISOString(),
  }
}

/** The object the client sees: the default, reshaped by the app's `session` callback when it has one. */
export async function clientSession(
  record: SessionRecord,
  callbacks: Readonly<Callbacks>,
  trigger: 'get' | 'update' = 'get',
  newData?: unknown,
): Promise<Session> {
  const session = defaultSession(record)
  if (!callbacks.session) return session
  return callbacks.session({ session, record, trigger, newData })
}
