import type { SessionRecord } from '../../infra/config/types'

/**
 * What a feature does when sessions end or move, so that what it keeps beside a session (provider
 * tokens in Redis: lib/features/provider-tokens/cleanup.ts) goes with it, without wrapping the
 * record store. Every hook is optional.
 *
 * The session manager (./manager.ts) runs them for every end it makes: sign-out, a browser's old
 * session replaced by a new sign-in, a sign-in undone because `stored` failed, sign-out everywhere
 * (`revokeSessions`, a provider's back-channel logout by subject) and the user's other sessions. The
 * database listing (./database-listing.ts) runs `sessionEnded` for the ends it makes one by one
 * (`revokeSession`, a provider's back-channel logout by session). A session that ends unseen
 * (expiry, the per-user cap) runs nothing: what a feature keeps beside it must expire with it.
 *
 * A hook runs once the store has ended the session. One that rejects makes the end reject (the
 * caller answers as for a store that failed), after the other features' hooks have run.
 */
export interface SessionLifecycle {
  /**
   * One session ended; `record`: what it held (read before the end when only its token was known);
   * `sid`: the store's id of it (database sessions), null for cookie sessions.
   */
  sessionEnded?(record: SessionRecord, sid: string | null): Promise<void>
  /** Every session of a user ended but `kept`, the one that stays (null: none stays). */
  userSessionsEnded?(userId: string, kept: SessionRecord | null): Promise<void>
  /** A session was written again under its token (a renewal, an update of its data): its expiry may have moved. */
  sessionRenewed?(record: SessionRecord): Promise<void>
}

/** Every feature's lifecycle as one: each hook runs in the list's order. */
export interface SessionHooks extends Required<SessionLifecycle> {
  /** Whether any lifecycle has `sessionEnded` (else a session ended by its token alone is not read first). */
  readonly endsSessions: boolean
}

export function sessionHooks(lifecycles: readonly SessionLifecycle[]): SessionHooks {
  const ended = lifecycles.flatMap((one) => (one.sessionEnded ? [one.sessionEnded.bind(one)] : []))
  const userEnded = lifecycles.flatMap((one) => (one.userSessionsEnded ? [one.userSessionsEnded.bind(one)] : []))
  const renewed = lifecycles.flatMap((one) => (one.sessionRenewed ? [one.sessionRenewed.bind(one)] : []))
  return Object.freeze({
    endsSessions: ended.length > 0,
    sessionEnded: (record: SessionRecord, sid: string | null) => runEach(ended, (hook) => hook(record, sid)),
    userSessionsEnded: (userId: string, kept: SessionRecord | null) => runEach(userEnded, (hook) => hook(userId, kept)),
    sessionRenewed: (record: SessionRecord) => runEach(renewed, (hook) => hook(record)),
  })
}

/** Runs every hook, one after the other, even past one that fails; then rejects with the first failure. */
async function runEach<Hook>(hooks: readonly Hook[], run: (hook: Hook) => Promise<void>): Promise<void> {
  let failure: { error: unknown } | null = null
  for (const hook of hooks) {
    try {
      await run(hook)
    } catch (error) {
      failure ??= { error }
    }
  }
  if (failure !== null) throw failure.error
}
