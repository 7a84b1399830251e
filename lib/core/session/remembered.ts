import type { SessionRecord } from '../../infra/config/types'
import type { OpenedRecord } from './record-store'
import { replyCache, type ReplyCache, type ReplyCacheLimits } from './reply-cache'
import type { SessionTransport } from './transport'

const nowSeconds = () => Math.floor(Date.now() / 1000)

export interface ReuseOptions {
  /**
   * Reuse what `GET /session` found for a token (sealed cookies, and database tokens while
   * the store vouches for their record): the reply, or the record when `perRequest`.
   */
  readonly replies?: ReplyCacheLimits | null
  /**
   * Something of the app's runs on every `GET /session` (a `session` callback, `events.session`):
   * then the cache keeps the record a token opened to, never an answer, and the app's code runs
   * on each request with that record.
   */
  readonly perRequest?: boolean
}

/**
 * What the session manager (./manager.ts) offers of the reply cache, and `forget` for its sign-out.
 * Closures, not methods: the manager hands them on as they are.
 */
export interface RememberedSessions {
  /**
   * The `GET /session` reply remembered for this exact token, when its session is still valid, not
   * due for renewal and known not to be revoked; else null. Synchronous: no crypto, no I/O.
   */
  readonly recall: (transport: SessionTransport) => string | null
  /**
   * Remembers the reply for a session just opened from this token and not renewed (when replies are
   * reused), for as long as `opened.reuse` allows.
   */
  readonly remember: (transport: SessionTransport, opened: OpenedRecord, reply: string) => void
  /**
   * When the app runs something per request (`perRequest`): the record remembered for this exact
   * token, as a new object each time (a callback that changes it changes nothing remembered), under
   * the same checks as `recall`; else null. Synchronous: no crypto, no I/O.
   */
  readonly recallRecord: (transport: SessionTransport) => SessionRecord | null
  /**
   * Remembers a record just opened from this token and not renewed, before the app's code sees it
   * (`perRequest`), for as long as `opened.reuse` allows.
   */
  readonly rememberRecord: (transport: SessionTransport, opened: OpenedRecord) => void
  /** Forgets what was remembered for a token (signed out with). */
  readonly forget: (token: string) => void
  /** The reply cache's size and counts, for telemetry's gauges (null: nothing is reused). */
  readonly cache: Pick<ReplyCache, 'size' | 'counts'> | null
}

/**
 * What `GET /session` reuses by the exact session token (./reply-cache.ts, checked on every use):
 * its answer when the reply depends on the record alone, or, when the app's code runs on every
 * request (a `session` callback, `events.session`), the record the token opened to, so that only
 * the opening (the crypto, the store's read) is saved and the app's code still runs each time.
 * `revocations.peek`: a user's revocation time when known without I/O (a hit needs it).
 */
export function rememberedSessions(
  timing: { readonly updateAge: number; readonly maxLifetime: number },
  revocations: { peek?(userId: string): number | undefined },
  options: ReuseOptions,
): RememberedSessions {
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
    cache,
  })
}
