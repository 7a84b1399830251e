import { types } from 'node:util'
import { sendJson } from '../../infra/http/reply'
import { ANSWERED_503, orAnswer503 } from '../../infra/http/unavailable'
import { clientSession } from '../session/shape'
import type { Context } from '../context'
import type { OpenedRecord } from '../session/record-store'
import type { SessionTransport } from '../session/transport'
import type { Session, SessionRecord } from '../../infra/config/types'

/**
 * GET /session: the hot path. Without a session cookie it answers at once, with no crypto; a cookie
 * whose reply is remembered (lib/core/session/reply-cache.ts) is answered at once too, with no crypto and
 * no promise; a cookie that does not open is cleared and answered like no cookie at all. When the
 * app's `session` callback or `events.session` runs per request, the record the cookie opened to is
 * what is remembered, and the app's code runs with it every time.
 */
export function getSession(ctx: Context): void | Promise<void> {
  const { svc, res } = ctx
  const cookie = ctx.sessionCookie()
  if (!svc.sessions.present(cookie)) return sendJson(res, 200, svc.config.emptySession, true)
  const remembered = svc.sessions.recall(cookie)
  if (remembered !== null) return sendJson(res, 200, remembered, true)
  // The app's code runs per request: the record is reused, never its answer.
  const record = svc.sessions.recallRecord(cookie)
  if (record !== null) return answer(ctx, cookie, record, null)
  return openSession(ctx, cookie)
}

async function openSession(ctx: Context, cookie: SessionTransport): Promise<void> {
  const { svc, res } = ctx
  const found = await orAnswer503(res, svc.sessions.open(cookie))
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
  const record = await orAnswer503(res, svc.sessions.renewIfDue(cookie, found.record))
  if (record === ANSWERED_503) return
  // A renewed session belongs to its new token (set on this response), not to this one. Kept
  // before the app's callback sees it.
  const kept = record === found.record ? found : null
  if (kept !== null) svc.sessions.rememberRecord(cookie, kept)
  return answer(ctx, cookie, record, kept)
}

/**
 * The session's answer, through the app's callback and event; `keep`: what the token opened to, to
 * remember the answer for (null: not remembered). Synchronous when the callback is and no
 * `events.session` is set: no promise on the hot path of an app with a session callback.
 */
function answer(
  ctx: Context,
  cookie: SessionTransport,
  record: SessionRecord,
  keep: OpenedRecord | null,
): void | Promise<void> {
  const session = clientSession(record, ctx.svc.config.callbacks, ctx.svc.log)
  // A real promise, never an answer that only looks like one (Promise.prototype, a Proxy): node's check.
  if (types.isPromise(session)) return session.then((shaped) => reply(ctx, cookie, record, keep, shaped))
  return reply(ctx, cookie, record, keep, session)
}

function reply(
  ctx: Context,
  cookie: SessionTransport,
  record: SessionRecord,
  keep: OpenedRecord | null,
  session: Session | null,
): void | Promise<void> {
  const { svc, res } = ctx
  if (session === null) return sendJson(res, 200, svc.config.emptySession, true)
  const event = svc.config.events.session
  if (event) return ctx.emit('session', event, { session, record }).then(() => send(ctx, cookie, keep, session))
  send(ctx, cookie, keep, session)
}

function send(ctx: Context, cookie: SessionTransport, keep: OpenedRecord | null, session: Session): void {
  const reply = JSON.stringify(session)
  if (keep !== null) ctx.svc.sessions.remember(cookie, keep, reply)
  sendJson(ctx.res, 200, reply, true)
}
