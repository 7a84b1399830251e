import type { SessionRecord } from '../../infra/config/types'
import type { SessionTransport } from './transport'
import { nowSeconds, writeSession, type NewSession, type Parts } from './writing'

/** The session `old` as a re-authentication by `input` leaves it (see `SessionManager.reauthenticate`). */
async function reauthenticated(
  { timing, revocations }: Parts,
  old: SessionRecord,
  input: NewSession,
): Promise<SessionRecord> {
  const now = nowSeconds()
  const { amr: _amr, tokens: _tokens, tokenError: _tokenError, provider: _provider, ...kept } = old
  const tokens = input.tokens === undefined ? old : input
  const record: SessionRecord = {
    ...kept,
    user: input.user,
    ...(input.data === undefined ? {} : { data: input.data }),
    ...(tokens.provider === undefined ? {} : { provider: tokens.provider }),
    ...(tokens.tokens === undefined ? {} : { tokens: tokens.tokens }),
    ...(tokens.tokenError ? { tokenError: true as const } : {}),
    ...(input.amr === undefined || input.amr.length === 0 ? {} : { amr: [...input.amr] }),
    // By the revocations' clock, as a sign-in is dated.
    authTime: Math.max(await revocations.stamp(old.userId), old.createdAt),
    issuedAt: now,
    expiresAt: Math.min(now + timing.maxAge, old.createdAt + timing.maxLifetime),
  }
  return record
}

/** See `SessionManager.reauthenticate`, for a session that opened to the same user. */
export async function reauthenticate(
  parts: Parts,
  transport: SessionTransport,
  old: SessionRecord,
  input: NewSession,
  stored?: (sid: string | null) => Promise<void>,
): Promise<SessionRecord | null> {
  const { records, hooks } = parts
  const previous = transport.token()
  const record = await reauthenticated(parts, old, input)
  if (records.rekey === undefined || previous === null) {
    // A cookie session: the new cookie is the new token (a copy of the old one keeps its old proof).
    await writeSession(parts, transport, record, null, null, stored)
    return record
  }
  const moved = await records.rekey(record, previous)
  // Ended or moved meanwhile: nothing to go on with, and this client's token is left as it is.
  if (moved === null) return null
  await hooks.sessionRenewed(moved.record)
  transport.assertFits(moved.token)
  if (stored) {
    try {
      await stored(records.listing?.sidOf(moved.token) ?? null)
    } catch (error) {
      await records
        .remove(moved.token, moved.record)
        .then(() => hooks.sessionEnded(moved.record, records.listing?.sidOf(moved.token) ?? null))
        .catch(() => undefined)
      throw error
    }
  }
  transport.write(moved.token, moved.record.expiresAt - nowSeconds())
  return moved.record
}
