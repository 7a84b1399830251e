import { isAuthError } from '../errors'
import { sendJson } from '../http/reply'
import { clientSession } from '../session/shape'
import type { Context } from '../context'
import type { SessionCookie } from '../session/manager'

/**
 * GET /session: the hot path. Without a session cookie it answers at once, with no crypto; a cookie
 * whose reply is remembered (lib/session/reply-cache.ts) is answered at once too, with no crypto and
 * no promise; a cookie that does not open is cleared and answered like no cookie at all.
 */
export function getSession(ctx: Context): void | Promise<void> {
  const { svc, res } = ctx
  const cookie = ctx.sessionCookie()
  if (!svc.sessions.present(cookie)) return sendJson(res, 200, svc.config.emptySession, true)
  const remembered = svc.sessions.recall(cookie)
  if (remembered !== null) return sendJson(res, 200, remembered, true)
  return openSession(ctx, cookie)
}

async function openSession(ctx: Context, cookie: SessionCookie): Promise<void> {
  const { svc, res } = ctx
  const found = await unlessUnavailable(ctx, svc.sessions.read(cookie))
  if (found === UNAVAILABLE) return
  if (!found) {
    svc.sessions.clear(cookie)
    svc.log(
      'debug',
      'session.invalid',
      'a session cookie that does not open (expired, tampered or from another secret) was cleared',
    )
    return sendJson(res, 200, svc.config.emptySession, true)
  }
  const record = await unlessUnavailable(ctx, svc.sessions.renewIfDue(cookie, found))
  if (record === UNAVAILABLE) return
  const session = await clientSession(record, svc.config.callbacks, svc.log)
  if (session === null) return sendJson(res, 200, svc.config.emptySession, true)
  await ctx.emit('session', svc.config.events.session, { session, record })
  const reply = JSON.stringify(session)
  // A renewed session's reply belongs to its new cookie (set on this response), not to this one.
  if (record === found) svc.sessions.remember(cookie, record, reply)
  sendJson(res, 200, reply, true)
}

export const UNAVAILABLE = Symbol('unavailable')

/**
 * The store's answer, or (when it does not answer) `503 {}` sent with the cookie kept, as the wire
 * contract says: the client keeps its session and asks again later.
 */
export async function unlessUnavailable<T>(ctx: Context, work: Promise<T>): Promise<T | typeof UNAVAILABLE> {
  try {
    return await work
  } catch (error) {
    if (!isAuthError(error) || error.code !== 'ServiceUnavailable') throw error
    sendJson(ctx.res, 503, '{}', true)
    return UNAVAILABLE
  }
}
