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
  const data = update ? await update({ record, newData }) : undefined
  if (data !== undefined) {
    record = { ...record, data }
    await svc.sessions.save(cookie, record)
  }
  const session = await clientSession(record, svc.config.callbacks, 'update', newData)
  sendJson(res, 200, JSON.stringify(session), true)
}
