import type { SessionRecord } from '../../infra/config/types'
import type { ManagerOptions, SessionManager, SessionRevocations, SessionTiming } from './manager'
import type { OpenedRecord } from './record-store'
import { replyCache, type ReplyCache } from './reply-cache'
import type { SessionTransport } from './transport'

const nowSeconds = () => Math.floor(Date.now() / 1000)

/**
 * What `GET /session` reuses by the exact session token (./reply-cache.ts, checked on every use):
 * its answer when the reply depends on the record alone, or, when the app's code runs on every
 * request (a `session` callback, `events.session`), the record the token opened to, so that only
 * the opening (the crypto, the store's read) is saved and the app's code still runs each time.
 */
export function rememberedSessions(
  timing: SessionTiming,
  revocations: SessionRevocations,
  options: ManagerOptions,
): Pick<SessionManager, 'recall' | 'remember' | 'recallRecord' | 'rememberRecord'> & { forget(token: string): void } {
  const cache = options.replies ? replyCache(timing, options.replies) : null
  const peek = revocations.peek === undefined ? null : revocations.peek.bind(revocations)
  // One cache: answers, or (the app's code running per request) records as JSON, never both.
  const replies = options.perRequest ? null : cache
  const records = options.perRequest ? cache : null

  function recalled(from: ReplyCache | null, transport: SessionTransport): string | null {
    if (from === null || peek === null) return null
    const token = transport.token()
    return token === null ? null : from.get(token, nowSeconds(), peek)
  }
  function keep(into: ReplyCache | null, transport: SessionTransport, opened: OpenedRecord, value: () => string): void {
    // A database record is remembered only while the store can tell it is still the one it holds.
    const { reuse } = opened
    if (into === null || peek === null || reuse === 'never') return
    const token = transport.token()
    if (token !== null) into.set(token, opened.record, value(), reuse === 'always' ? undefined : reuse)
  }

  return Object.freeze({
    recall: (transport: SessionTransport) => recalled(replies, transport),
    remember(transport: SessionTransport, opened: OpenedRecord, reply: string) {
      keep(replies, transport, opened, () => reply)
    },
    recallRecord(transport: SessionTransport) {
      const json = recalled(records, transport)
      // An opened record is plain JSON (it was claims), so parsing gives what opening the token
      // gives, a new object each time: a callback that changes its record changes nothing kept.
      return json === null ? null : (JSON.parse(json) as SessionRecord)
    },
    rememberRecord(transport: SessionTransport, opened: OpenedRecord) {
      keep(records, transport, opened, () => JSON.stringify(opened.record))
    },
    forget(token: string) {
      cache?.delete(token)
    },
  })
}
