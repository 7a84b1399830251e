import { sendJson } from '../../infra/http/reply'
import { ANSWERED_503, orAnswer503 } from '../../infra/http/unavailable'
import type { SessionRecord } from '../../infra/config/types'
import { isAuthError } from '../../infra/errors'
import type { SessionTransport } from '../session/transport'
import { toSessionData } from '../session/record'
import { appRecord, clientSession } from '../session/shape'
import type { Context } from '../context'

/**
 * POST /session (the client's `update(data)`): the app's `update` callback decides what of `data`
 * is kept server-side; the `session` callback sees `data` with trigger 'update'.
 */
export async function updateSession(ctx: Context): Promise<void> {
  const { svc, res } = ctx
  const cookie = ctx.sessionCookie()
  const found = svc.sessions.present(cookie) ? await orAnswer503(res, svc.sessions.read(cookie)) : null
  if (found === ANSWERED_503) return
  let record = found
  if (!record) return sendJson(res, 200, svc.config.emptySession, true)
  const newData = ctx.body.data
  const { update } = svc.config.callbacks
  const answer: unknown = update ? await update({ record: appRecord(record), newData }) : undefined
  const data = answer === undefined ? undefined : toSessionData(answer)
  if (data === null) {
    // Anything but a JSON object (or undefined: keep) would seal a session that no longer opens.
    svc.log(
      'error',
      'callback.error',
      'callbacks.update answered something other than a JSON object or undefined: the session was left as it was',
    )
  } else if (data !== undefined) {
    const saved = await orAnswer503(res, saveIfItFits(ctx, cookie, record, { ...record, data }))
    if (saved === ANSWERED_503) return
    record = saved
  }
  const session = await clientSession(record, svc.config.callbacks, svc.log, 'update', newData)
  sendJson(res, 200, session === null ? svc.config.emptySession : JSON.stringify(session), true)
}

/** The saved record, or the one before when the new one would not fit in the cookies (logged). */
async function saveIfItFits(
  ctx: Context,
  cookie: SessionTransport,
  before: SessionRecord,
  after: SessionRecord,
): Promise<SessionRecord> {
  try {
    await ctx.svc.sessions.save(cookie, after)
    return after
  } catch (error) {
    if (!isAuthError(error) || error.code !== 'Configuration') throw error
    ctx.svc.log(
      'error',
      'callback.error',
      `callbacks.update kept more data than a session cookie holds, so the session was left as it was: ${error.message}`,
    )
    return before
  }
}
