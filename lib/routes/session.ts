import { sendJson } from '../http/reply'
import { ANSWERED_503, orAnswer503 } from '../http/unavailable'
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
  const found = await orAnswer503(res, svc.sessions.read(cookie))
  if (found === ANSWERED_503) return
  if (!found) {
    svc.sessions.clear(cookie)
    svc.log(
      'debug',
      'session.invalid',
      'a session cookie that does not open (expired, tampered or from another secret) was cleared',
    )
    return sendJson(res, 200, svc.config.emptySession, true)
  }
  const record = await orAnswer503(res, svc.sessions.renewIfDue(cookie, found))
  if (record === ANSWERED_503) return
  const session = await clientSession(record, svc.config.callbacks, svc.log)
  if (session === null) return sendJson(res, 200, svc.config.emptySession, true)
  await ctx.emit('session', svc.config.events.session, { session, record })
  const reply = JSON.stringify(session)
  // A renewed session's reply belongs to its new cookie (set on this response), not to this one.
  if (record === found) svc.sessions.remember(cookie, record, reply)
  sendJson(res, 200, reply, true)
}
