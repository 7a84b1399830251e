import { sendJson } from '../http/reply'
import { clientSession } from '../session/shape'
import type { Context } from '../context'

/**
 * GET /session: the hot path. Without a session cookie it answers at once, with no crypto; a cookie
 * that does not open is cleared and answered like no cookie at all.
 */
export async function getSession(ctx: Context): Promise<void> {
  const { svc, res } = ctx
  const cookie = ctx.sessionCookie()
  if (!svc.sessions.present(cookie)) return sendJson(res, 200, svc.config.emptySession, true)
  const found = await svc.sessions.read(cookie)
  if (!found) {
    svc.sessions.clear(cookie)
    svc.log(
      'debug',
      'session.invalid',
      'a session cookie that does not open (expired, tampered or from another secret) was cleared',
    )
    return sendJson(res, 200, svc.config.emptySession, true)
  }
  const record = await svc.sessions.renewIfDue(cookie, found)
  const session = await clientSession(record, svc.config.callbacks, svc.log)
  if (session === null) return sendJson(res, 200, svc.config.emptySession, true)
  await ctx.emit('session', svc.config.events.session, { session, record })
  sendJson(res, 200, JSON.stringify(session), true)
}
