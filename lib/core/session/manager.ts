import type { SessionRecord } from '../../infra/config/types'
import { randomToken } from '../../infra/crypto/random'
import { deviceOf } from './device-info'
import { sessionHooks, type SessionLifecycle } from './lifecycle'
import { rememberedSessions, type RememberedSessions, type ReuseOptions } from './remembered'
import { revocableSince } from './record'
import type { OpenedRecord, RecordStore } from './record-store'
import type { SessionTransport } from './transport'
import { reauthenticate } from './reauthenticate'
import { NO_CHECKS, type SessionChecks } from './telemetry'
import {
  nowSeconds,
  writeSession,
  type NewSession,
  type Parts,
  type SessionRevocations,
  type SessionTiming,
} from './writing'

export type { NewSession, SessionRevocations, SessionTiming } from './writing'

/**
 * Sessions over a record store (./record-store.ts): reading, creating, rolling renewal and removal,
 * on the session token alone. The token comes and goes through a transport (./transport.ts; the
 * cookie: ./cookie-transport.ts), whatever the store; every end and renewal runs the features'
 * lifecycle hooks (./lifecycle.ts).
 */
export interface SessionManager extends Omit<RememberedSessions, 'forget'> {
  /** Whether the request carries a session token at all (no crypto, no I/O). */
  present(transport: SessionTransport): boolean
  /** The valid record, or null. */
  read(transport: SessionTransport): Promise<SessionRecord | null>
  /**
   * The valid record with how long what is found about it may be reused for this token (the reply
   * cache: `remember`, `rememberRecord`), or null.
   */
  open(transport: SessionTransport): Promise<OpenedRecord | null>
  /**
   * `stored`: runs once the store keeps the new session, before the token is handed out, with the store's id
   * of it (database sessions; null for cookie sessions). When it fails, the session is removed again
   * and `create` rejects: nothing it was to record about the session can be missing.
   */
  create(
    transport: SessionTransport,
    input: NewSession,
    stored?: (sid: string | null) => Promise<void>,
  ): Promise<SessionRecord>
  /**
   * A re-authentication (step-up) by the signed-in user: the transport's session, when it opens to
   * `input.userId`'s, goes on with what the user proved just now (`amr`, `authTime`) under a new
   * token; a database session keeps its handle (`listSessions`). Its sign-in time, and so its
   * `maxLifetime`, stay; its provider and the provider's tokens stay unless this sign-in brought
   * tokens of its own. Without such a session (expired, signed out meanwhile): a new one, as `create`.
   * Null when a database session was ended or moved while this ran (its device revoked, the same
   * re-authentication submitted twice): nothing is kept and the client's token stays as it was.
   * `stored` as for `create`.
   */
  reauthenticate(
    transport: SessionTransport,
    input: NewSession,
    stored?: (sid: string | null) => Promise<void>,
  ): Promise<SessionRecord | null>
  /** Renews the session when it was issued more than `updateAge` ago; returns the current record. */
  renewIfDue(transport: SessionTransport, record: SessionRecord): Promise<SessionRecord>
  /** Rewrites the session with new data, keeping its expiry. */
  save(transport: SessionTransport, record: SessionRecord): Promise<void>
  /** Removes the session where it is kept and clears the client's token. */
  destroy(transport: SessionTransport, record: SessionRecord | null): Promise<void>
  /** Ends every session of a user, wherever it is: revoked from now on, and deleted where it is kept. */
  revokeAll(userId: string): Promise<void>
  /**
   * Ends every session of the record's user but the transport's own. Database sessions: the others are
   * unlisted and deleted, this one and its token stay (re-issued past a revocation of the user's
   * sessions, which ends what waits on it: a sign-in held for its second factor). Cookie sessions cannot be told apart: all of
   * them are revoked and this client gets a new session for the same sign-in (same user, data and
   * sign-in time, so still bounded by `maxLifetime`), re-issued after the revocation.
   */
  revokeOthers(transport: SessionTransport, record: SessionRecord): Promise<void>
  /** Clears the client's token only (for a token that did not open). */
  clear(transport: SessionTransport): void
}

/** How the manager reuses what `GET /session` found (./remembered.ts), and whom it tells of ends. */
export interface ManagerOptions extends ReuseOptions {
  /** The features' hooks, run on every end and renewal of a session the manager makes (./lifecycle.ts). */
  readonly lifecycles?: readonly SessionLifecycle[]
  /** Where each check's result is counted (`present`, `recall`, `recallRecord`, `open`): telemetry's. */
  readonly checks?: SessionChecks
}

/** The valid record of the transport's token, with how long it may be reused, or null; counted in `checks`. */
async function openSession(
  { records, timing, revocations }: Parts,
  transport: SessionTransport,
  checks: SessionChecks,
): Promise<OpenedRecord | null> {
  const token = transport.token()
  const opened = token === null ? null : await records.read(token, nowSeconds(), timing.maxLifetime)
  // Signed in before the user's sessions were revoked (sign-out everywhere): over, wherever it is kept.
  if (opened === null || revocableSince(opened.record) < (await revocations.before(opened.record.userId))) {
    checks.none()
    return null
  }
  // Reused only when not read through I/O (the cookie itself, records held current in memory).
  if (opened.reuse === 'never') checks.miss()
  else checks.hit()
  return opened
}

/** Writes a new session, signed in now (the client's previous one, if any, is the caller's). */
async function startSession(
  parts: Parts,
  transport: SessionTransport,
  input: NewSession,
  stored?: (sid: string | null) => Promise<void>,
): Promise<SessionRecord> {
  const now = nowSeconds()
  // Dated by the revocations' clock (Redis's), never before the user's last revocation.
  const createdAt = await parts.revocations.stamp(input.userId)
  const { authTime, ...rest } = input
  const record: SessionRecord = { ...rest, createdAt, issuedAt: now, expiresAt: now + parts.timing.maxAge }
  // A cookie session has no id of the store's: one of its own, for what names it elsewhere.
  if (parts.records.listing === undefined) record.signInId = randomToken(16)
  // Proved before this sign-in (a provider's older sign-in): requireAuth({ maxAge }) counts from then.
  if (authTime !== undefined && authTime < createdAt) record.authTime = authTime
  const req = transport.request
  await writeSession(parts, transport, record, null, req ? deviceOf(req, record) : null, stored)
  return record
}

/**
 * Removes the session behind a token, then runs `sessionEnded` with what it held. `record`: null
 * when only the token is known (a new sign-in ending the client's old session, a session that did
 * not open): then read first, and only when a hook wants it.
 */
async function endSession({ records, hooks }: Parts, token: string, record: SessionRecord | null): Promise<void> {
  const held =
    record ??
    (hooks.endsSessions
      ? await records.read(token, nowSeconds(), Infinity).then(
          (opened) => opened?.record ?? null,
          () => null,
        )
      : null)
  await records.remove(token, record)
  if (held !== null) await hooks.sessionEnded(held, records.listing?.sidOf(token) ?? null)
}

/**
 * Only a sign-in dates a session: the one replacing it keeps the sign-in time (`auth_time`, the
 * recent sign-in passkey registration asks for) and the `maxLifetime` counted from it. Dated past
 * the revocation just made by the revocations' clock, as a sign-in is.
 */
async function reissued({ timing, revocations }: Parts, record: SessionRecord): Promise<SessionRecord> {
  const now = nowSeconds()
  const reissuedAt = Math.max(await revocations.stamp(record.userId), record.createdAt)
  const expiresAt = Math.min(now + timing.maxAge, record.createdAt + timing.maxLifetime)
  return { ...record, reissuedAt, issuedAt: now, expiresAt }
}

/** See `SessionManager.revokeOthers`. */
async function endOthers(parts: Parts, transport: SessionTransport, record: SessionRecord): Promise<void> {
  const { records, revocations, hooks } = parts
  const token = transport.token()
  // Database sessions: this one is kept by its token (one that opened, so never null here).
  if (records.listing !== undefined) {
    if (token === null) return
    // Dated too, as for cookie sessions: what waits on the user's revocation time (a sign-in held
    // for its second factor, begun with the old password) is over. This one is dated past it under
    // its own token, its expiry as it was: the client's cookie is untouched.
    // Dated past the revocation before it is made (a revocation is the next second, or the one after
    // the last), so that a request it makes meanwhile still finds it; again, should the clock have moved on.
    const ahead = Math.max(await revocations.stamp(record.userId), record.createdAt) + 2
    await records.write({ ...record, reissuedAt: ahead }, token)
    await revocations.revoke(record.userId)
    const revokedAt = await revocations.before(record.userId, true)
    if (revokedAt > ahead) await records.write({ ...record, reissuedAt: revokedAt }, token)
    await records.removeAll(record.userId, nowSeconds(), token)
    await hooks.userSessionsEnded(record.userId, record)
    return
  }
  // Cookie sessions: all of them are revoked, this client gets a new one for the same sign-in. What
  // features keep beside it stays: it is the kept session, and its re-issue is no end of it.
  await revocations.revoke(record.userId)
  await records.removeAll(record.userId, nowSeconds(), token ?? undefined)
  await hooks.userSessionsEnded(record.userId, token === null ? null : record)
  await writeSession(parts, transport, await reissued(parts, record), null, null)
}

export function createSessionManager(
  records: RecordStore,
  timing: SessionTiming,
  revocations: SessionRevocations,
  options: ManagerOptions = {},
): SessionManager {
  const parts: Parts = { records, timing, revocations, hooks: sessionHooks(options.lifecycles ?? []) }
  const remembered = rememberedSessions(timing, revocations, options)
  const checks = options.checks ?? NO_CHECKS
  const open = (transport: SessionTransport) => openSession(parts, transport, checks)
  // A hit of the reply cache is a check; a miss goes on to `open`, which counts it.
  const hitIf = <T>(found: T | null) => {
    if (found !== null) checks.hit()
    return found
  }

  const manager: SessionManager = Object.freeze({
    present(transport: SessionTransport) {
      if (transport.present()) return true
      checks.none()
      return false
    },

    open,

    async read(transport: SessionTransport) {
      const opened = await open(transport)
      return opened === null ? null : opened.record
    },

    async create(transport: SessionTransport, input: NewSession, stored?: (sid: string | null) => Promise<void>) {
      // A new session never reuses a token the client brought with it, and ends the session that
      // token named (database sessions): a copy of the old token is worth nothing after a new sign-in.
      const previous = transport.token()
      if (previous !== null) await endSession(parts, previous, null)
      return startSession(parts, transport, input, stored)
    },

    async reauthenticate(
      transport: SessionTransport,
      input: NewSession,
      stored?: (sid: string | null) => Promise<void>,
    ) {
      const opened = await open(transport)
      if (opened === null || opened.record.userId !== input.userId) return manager.create(transport, input, stored)
      const token = transport.token()
      if (token !== null) remembered.forget(token)
      return reauthenticate(parts, transport, opened.record, input, stored)
    },

    async renewIfDue(transport: SessionTransport, record: SessionRecord) {
      const now = nowSeconds()
      // Renewal stops at the absolute lifetime: a renewal that would not move the expiry is skipped.
      if (now - record.issuedAt < timing.updateAge || record.expiresAt >= record.createdAt + timing.maxLifetime)
        return record
      const renewed = {
        ...record,
        issuedAt: now,
        expiresAt: Math.min(now + timing.maxAge, record.createdAt + timing.maxLifetime),
      }
      await writeSession(parts, transport, renewed, transport.token(), null)
      return renewed
    },

    async save(transport: SessionTransport, record: SessionRecord) {
      await writeSession(parts, transport, record, transport.token(), null)
    },

    async destroy(transport: SessionTransport, record: SessionRecord | null) {
      const token = transport.token()
      // Signed out here: this client's token is gone; a copy of it opens as it always did.
      if (token !== null) remembered.forget(token)
      if (token !== null) await endSession(parts, token, record)
      transport.clear()
    },

    async revokeAll(userId: string) {
      // The time first: a renewal racing the deletion below cannot bring a session back.
      await revocations.revoke(userId)
      await records.removeAll(userId, nowSeconds())
      await parts.hooks.userSessionsEnded(userId, null)
    },

    revokeOthers: (transport: SessionTransport, record: SessionRecord) => endOthers(parts, transport, record),

    clear(transport: SessionTransport) {
      transport.clear()
    },

    recall: (transport: SessionTransport) => hitIf(remembered.recall(transport)),
    remember: remembered.remember,
    recallRecord: (transport: SessionTransport) => hitIf(remembered.recallRecord(transport)),
    rememberRecord: remembered.rememberRecord,
    cache: remembered.cache,
  })
  return manager
}
