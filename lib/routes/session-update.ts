import { sendJson } from '../http/reply'
import { clientSession } from '../session/shape'
import { sessionCookie, type Context } from './context'

/**
 * POST /session (the client's `update(data)`): the app's `update` callback decides what of `data`
 * is kept server-side; the `session` callback sees `data` with trigger 'update'.
 */
export async function updateSession(ctx: Context): Promise<void> {
  const { svc, res } = ctx
  const cookie = sessionCookie(ctx)
  let record = svc.sessions.present(cookie) ? await svc.sessions.read(cookie) : null
  if (!record) return sendJson(res, 200, svc.config.emptySession, true)
  const newData = ctx.body.data
  const { update } = svc.config.callbacks
  const data: unknown = update ? await update({ record, newData }) : undefined
  if (data !== null && typeof data === 'object' && !Array.isArray(data)) {
    record = { ...record, data: data as Record<string, unknown> }
    await svc.sessions.save(cookie, record)
  } else if (data !== undefined) {
    // Anything but an object (or undefined: keep) would seal a session that no longer opens.
    svc.log('error', 'callback.error', 'callbacks.update answered something other than an object or undefined: the session was left as it was')
  }
  const session = await clientSession(record, svc.config.callbacks, svc.log, 'update', newData)
  sendJson(res, 200, session === null ? svc.config.emptySession : JSON.stringify(session), true)
}
