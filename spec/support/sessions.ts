import type { Response } from 'express'
import { buildCookieSet } from '../../lib/config/cookies'
import type { SessionUser } from '../../lib/config/types'
import { keyRing } from '../../lib/crypto/keys'
import { cookieStore } from '../../lib/session/cookie-store'
import { createSessionManager } from '../../lib/session/manager'
import { SECRET } from './app'

/** A response stand-in that only records headers: enough for the session manager to set cookies. */
function headerRecorder() {
  const headers = new Map<string, unknown>()
  const res = {
    getHeader: (name: string) => headers.get(name.toLowerCase()),
    setHeader: (name: string, value: unknown) => headers.set(name.toLowerCase(), value),
  }
  return { res: res as unknown as Response, headers }
}

/**
 * Creates a session with the package's own session manager (as a sign-in will) and returns the
 * `Cookie` header that carries it.
 */
export async function sessionCookieFor(
  user: SessionUser & { id?: string },
  options: { secret?: string; maxAge?: number; updateAge?: number; data?: Record<string, unknown>; secure?: boolean } = {},
): Promise<string> {
  const manager = createSessionManager(cookieStore(keyRing([options.secret ?? SECRET], 'session')), {
    maxAge: options.maxAge ?? 30 * 24 * 3600,
    updateAge: options.updateAge ?? 24 * 3600,
  })
  const def = buildCookieSet(options.secure ?? false, {}, false).sessionToken
  const { res, headers } = headerRecorder()
  const { id = 'test:1', ...profile } = user
  await manager.create({ cookies: {}, def, res }, { userId: id, user: profile, data: options.data })
  const lines = ([] as string[]).concat(headers.get('set-cookie') as string | string[])
  return lines.map((line) => line.split(';', 1)[0]).join('; ')
}
