import type { SessionRecord, SessionUser } from '../../infra/config/types'
import type { Revocations } from '../../infra/store/types'
import { deviceOf, type DeviceInfo } from './device-info'
import { rememberedSessions, type RememberedSessions, type ReuseOptions } from './remembered'
import { revocableSince } from './record'
import type { OpenedRecord, SessionStore } from './record-store'
import type { SessionTransport } from './transport'

export interface NewSession {
  userId: string
  user: SessionUser
  data?: Record<string, unknown>
  provider?: string
  /** Where the provider's tokens are (lib/features/provider-tokens/). */
  tokens?: string
  /** Those tokens could not be refreshed for good. */
  tokenError?: true
}

/**
 * Sessions over a store: reading, creating, rolling renewal and removal, on the session token alone.
 * The token comes and goes through a transport (./transport.ts; the cookie: ./cookie-transport.ts),
 * whatever the store.
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
   * unlisted and deleted, this one and its token stay. Cookie sessions cannot be told apart: all of
   * them are revoked and this client gets a new session for the same sign-in (same user, data and
   * sign-in time, so still bounded by `maxLifetime`), re-issued after the revocation.
   */
  revokeOthers(transport: SessionTransport, record: SessionRecord): Promise<void>
  /** Clears the client's token only (for a token that did not open). */
  clear(transport: SessionTransport): void
}

/**
 * Revocations that can tell a user's revocation time from memory, when they know it without I/O
 * (lib/store: always in memory; with Redis, within the revocation delay). A hit of the reply cache
 * needs it; without it every request opens its token.
 */
export type SessionRevocations = Revocations & { peek?(userId: string): number | undefined }

/** How the manager reuses what `GET /session` found (./remembered.ts). */
export type ManagerOptions = ReuseOptions

export interface SessionTiming {
  readonly maxAge: number
  readonly updateAge: number
  readonly maxLifetime: number
}

const nowSeconds = () => Math.floor(Date.now() / 1000)

/** Where a sign-in comes from: the transport's request, when there is one. */
function deviceOfRequest(transport: SessionTransport, record: SessionRecord): DeviceInfo | null {
  const req = transport.request
  return req ? deviceOf(req, record) : null
}

/** Writes the record and hands the client the token the store answers. */
async function writeSession(
  store: SessionStore,
  transport: SessionTransport,
  record: SessionRecord,
  previous: string | null,
  device: DeviceInfo | null,
  stored?: (sid: string | null) => Promise<void>,
): Promise<void> {
  // Only a sign-in says where it comes from: renewals and updates never rewrite it.
  const token = await (device === null ? store.write(record, previous) : store.write(record, previous, device))
  transport.assertFits(token)
  if (stored) {
    try {
      await stored(store.sessions?.sidOf(token) ?? null)
    } catch (error) {
      await store.remove(token, record).catch(() => undefined)
      throw error
    }
  }
  transport.write(token, record.expiresAt - nowSeconds())
}

/** Writes a new session, signed in now (the browser's previous one, if any, is the caller's). */
async function startSession(
  store: SessionStore,
  timing: SessionTiming,
  revocations: Revocations,
  transport: SessionTransport,
  input: NewSession,
  stored?: (sid: string | null) => Promise<void>,
): Promise<SessionRecord> {
  const now = nowSeconds()
  // Dated by the revocations' clock (Redis's), never before the user's last revocation.
  const createdAt = await revocations.stamp(input.userId)
  const record: SessionRecord = { ...input, createdAt, issuedAt: now, expiresAt: now + timing.maxAge }
  await writeSession(store, transport, record, null, deviceOfRequest(transport, record), stored)
  return record
}

/** The valid record of the transport's token, with how long it may be reused, or null. */
async function openSession(
  store: SessionStore,
  timing: SessionTiming,
  revocations: Revocations,
  transport: SessionTransport,
): Promise<OpenedRecord | null> {
  const token = transport.token()
  if (token === null) return null
  const opened = await store.read(token, nowSeconds(), timing.maxLifetime)
  if (opened === null) return null
  // Signed in before the user's sessions were revoked (sign-out everywhere): over, wherever it is kept.
  return revocableSince(opened.record) >= (await revocations.before(opened.record.userId)) ? opened : null
}

export function createSessionManager(
  store: SessionStore,
  timing: SessionTiming,
  revocations: SessionRevocations,
  options: ManagerOptions = {},
): SessionManager {
  const remembered = rememberedSessions(timing, revocations, options)

  const write = (
    transport: SessionTransport,
    record: SessionRecord,
    previous: string | null,
    device?: DeviceInfo | null,
  ) => writeSession(store, transport, record, previous, device ?? null)

  // Only a sign-in dates a session: the one replacing it keeps the sign-in time (`auth_time`, the
  // recent sign-in passkey registration asks for) and the `maxLifetime` counted from it. Dated past
  // the revocation just made by the revocations' clock, as a sign-in is.
  const reissued = async (record: SessionRecord): Promise<SessionRecord> => {
    const now = nowSeconds()
    const reissuedAt = Math.max(await revocations.stamp(record.userId), record.createdAt)
    const expiresAt = Math.min(now + timing.maxAge, record.createdAt + timing.maxLifetime)
    return { ...record, reissuedAt, issuedAt: now, expiresAt }
  }

  const open = (transport: SessionTransport) => openSession(store, timing, revocations, transport)
  const start = (transport: SessionTransport, input: NewSession, stored?: (sid: string | null) => Promise<void>) =>
    startSession(store, timing, revocations, transport, input, stored)

  const manager: SessionManager = Object.freeze({
    present: (transport: SessionTransport) => transport.present(),

    open,

    async read(transport: SessionTransport) {
      const opened = await open(transport)
      return opened === null ? null : opened.record
    },

    async create(transport: SessionTransport, input: NewSession, stored?: (sid: string | null) => Promise<void>) {
      // A new session never reuses a token the browser brought with it, and ends the session that
      // token named (database sessions): a copy of the old cookie is worth nothing after a new sign-in.
      const previous = transport.token()
      if (previous !== null) await store.remove(previous, null)
      return start(transport, input, stored)
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
      await write(transport, renewed, transport.token())
      return renewed
    },

    async save(transport: SessionTransport, record: SessionRecord) {
      await write(transport, record, transport.token())
    },

    async destroy(transport: SessionTransport, record: SessionRecord | null) {
      const token = transport.token()
      // Signed out here: this client's token is gone; a copy of it opens as it always did.
      if (token !== null) remembered.forget(token)
      if (token !== null) await store.remove(token, record)
      transport.clear()
    },

    async revokeAll(userId: string) {
      // The time first: a renewal racing the deletion below cannot bring a session back.
      await revocations.revoke(userId)
      await store.removeAll(userId, nowSeconds())
    },

    async revokeOthers(transport: SessionTransport, record: SessionRecord) {
      const token = transport.token()
      // Database sessions: this one is kept by its token (one that opened, so never null here).
      if (store.sessions !== undefined)
        return token === null ? undefined : store.removeAll(record.userId, nowSeconds(), token)
      // Cookie sessions: all of them are revoked, this browser gets a new one for the same sign-in.
      // Its provider's tokens go with it: kept by its token (the others' end), and not ended as a
      // replaced session's would be (the cookie store itself has nothing to remove).
      await revocations.revoke(record.userId)
      await store.removeAll(record.userId, nowSeconds(), token ?? undefined)
      await write(transport, await reissued(record), null)
    },

    clear(transport: SessionTransport) {
      transport.clear()
    },

    recall: remembered.recall,
    remember: remembered.remember,
    recallRecord: remembered.recallRecord,
    rememberRecord: remembered.rememberRecord,
  })
  return manager
}
