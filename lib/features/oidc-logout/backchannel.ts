import type { Context } from '../../core/context'
import { decodeJws } from '../../infra/crypto/jws'
import { AuthError } from '../../infra/errors'
import { verifyLogoutToken, JTI_KEPT_SECONDS } from './logout-token'
import type { OAuthRuntime } from '../oauth/registry'
import type { Services } from '../../core/services'
import type { LogoutRuntime } from './runtime'

/**
 * OpenID Connect Back-Channel Logout 1.0 over our sessions and revocations. At sign-in with an
 * oidc() provider, the ID token's `sid` is remembered with the session it signed in (the store's id
 * of a database session; for cookie sessions, which cannot be ended one by one, the user), and its
 * `sub` with the user id the sign-in gave (the signIn callback may choose another than
 * `{provider}:{sub}`). A valid logout token later names that sid, and exactly those database
 * sessions end on every instance (unlisted and deleted, as `revokeSession` does); or it names only
 * the sub (or cookie sessions), and every session of those users ends through `svc.sessions.revokeAll`.
 * So GET /session pays nothing more than it did: a deleted session is gone from the store it reads,
 * and the revocation time it already checks is the one that moves.
 */

/** The names a provider's session and subject are remembered under (a NUL cannot be in a provider id). */
function nameOf(providerId: string, kind: 'sid' | 'sub', value: string): string {
  return `${providerId}\0${kind}\0${value}`
}

/** What a name signed in: one database session of a user (`s`), or every session of a user (`u`). */
const userEntry = (userId: string) => `u\0${userId}`
const sessionEntry = (userId: string, sid: string) => `s\0${sid}\0${userId}`

type Entry = { kind: 'user'; userId: string } | { kind: 'session'; userId: string; sid: string }

/** Store ids have no NUL; user ids may. Anything else read back names nobody. */
function entryOf(entry: string): Entry | null {
  if (entry.startsWith('u\0') && entry.length > 2) return { kind: 'user', userId: entry.slice(2) }
  const end = entry.indexOf('\0', 2)
  if (!entry.startsWith('s\0') || end < 3 || end === entry.length - 1) return null
  return { kind: 'session', sid: entry.slice(2, end), userId: entry.slice(end + 1) }
}

/** The ID token's `sid` or `sub`, when it is a usable name (the ID token is already verified). */
function claimOf(idToken: unknown, kind: 'sid' | 'sub'): string | null {
  const value = decodeJws(idToken)?.payload[kind]
  return typeof value === 'string' && value !== '' && value.length <= 1024 ? value : null
}

/** Before the session is made: the provider's subject signed in `userId` (every session of the user). */
export async function rememberProviderSubject(
  svc: Services,
  rt: LogoutRuntime,
  providerId: string,
  idToken: unknown,
  userId: string,
): Promise<void> {
  const sub = claimOf(idToken, 'sub')
  if (sub !== null)
    await rt.index.remember(nameOf(providerId, 'sub', sub), userEntry(userId), svc.config.session.maxLifetime)
}

/**
 * Once the store keeps the new session: the provider's session signed in that session (`sid`, the
 * store's id of a database session), or, for a cookie session (`sid` null), the user.
 */
export async function rememberProviderSession(
  svc: Services,
  rt: LogoutRuntime,
  providerId: string,
  idToken: unknown,
  userId: string,
  sid: string | null,
): Promise<void> {
  const providerSid = claimOf(idToken, 'sid')
  if (providerSid === null) return
  const entry = sid === null ? userEntry(userId) : sessionEntry(userId, sid)
  // Past the bound of entries, the user is kept instead: the logout then ends more, never less.
  const name = nameOf(providerId, 'sid', providerSid)
  if (await rt.index.remember(name, entry, svc.config.session.maxLifetime, userEntry(userId))) return
  // That provider session logged out while this sign-in through it was under way: no session
  // outlives it (the manager removes the one just kept).
  const reason = `provider ${providerId}: its session was logged out while the sign-in completed`
  svc.log('warn', 'callback.error', reason)
  throw new AuthError('OAuthCallback', reason)
}

/**
 * `userIds`: the users some or all of whose sessions ended. `count`: how many sessions ended, when
 * each was ended on its own; null when some user's every session ended at once (their number is
 * unknown). The event and the log call it `sessions`.
 */
export type LogoutOutcome = ({ ok: true } & EndedSessions) | { ok: false; reason: string; retry?: true }

interface EndedSessions {
  userIds: string[]
  /** The users whose every session ended (per user: a `sub` only, or cookie sessions). */
  everywhere: string[]
  /** The other users, and how many of their sessions ended one by one. */
  ended: ReadonlyMap<string, number>
  count: number | null
}

/**
 * A logout token posted to this provider's route: validated (./logout-token.ts), the
 * sessions its sid (else the users its sub) signed in end, and only then are they forgotten and its
 * `jti` spent: a store that fails part-way leaves both, so the provider's retry of the same token
 * ends what is left (ending twice is harmless), and once it succeeded the token is a replay.
 * Never throws.
 */
export async function endProviderSession(
  ctx: Context,
  rt: LogoutRuntime,
  runtime: OAuthRuntime,
  token: unknown,
): Promise<LogoutOutcome> {
  const { svc } = ctx
  const { provider } = runtime
  if (provider.protocol !== 'oidc') return { ok: false, reason: 'the provider is not an OpenID Connect provider' }
  try {
    // Discovery is not asked again within its back-off: posting tokens cannot make us call a failing issuer.
    const ready = await runtime.awaitDiscovery()
    if (!ready?.oidc) return { ok: false, reason: 'the provider could not be set up (see the discovery error)' }
    const verified = await verifyLogoutToken(
      token,
      { issuer: ready.oidc.metadata.issuer, clientId: provider.clientId },
      ready.oidc.jwks,
    )
    if (!verified.ok) return verified
    const { sid, sub, jti } = verified.claims
    const jtiName = `${provider.id}\0${jti}`
    if (await rt.index.used(jtiName)) return { ok: false, reason: 'its jti was used before (a replay)' }
    // A sid is over for good (a new session at the provider has a new one); a sub signs in again.
    const name = sid !== null ? nameOf(provider.id, 'sid', sid) : nameOf(provider.id, 'sub', sub!)
    const entries = await rt.index.entries(name, sid !== null)
    const ended = await endEntries(svc, entries)
    await rt.index.forget(name, entries, sid !== null)
    // False when the same token, posted twice at once, was spent by the other: it ended the same sessions.
    await rt.index.firstUse(jtiName, JTI_KEPT_SECONDS)
    return { ok: true, ...ended }
  } catch {
    // §2.8 answers a failed logout with 400; nothing is spent, so a retry of the same token ends what is left.
    return { ok: false, reason: 'the session store did not answer', retry: true }
  }
}

/** Ends what the entries name: the users' every session, then each named session of the other users. */
async function endEntries(svc: Services, entries: readonly string[]): Promise<EndedSessions> {
  const parsed = entries.map(entryOf).filter((entry): entry is Entry => entry !== null)
  const { endSession } = svc
  // A session entry read where sessions cannot be ended one by one (the strategy changed): its user's every session.
  const everywhere = new Set(
    parsed.filter((entry) => entry.kind === 'user' || endSession === null).map((entry) => entry.userId),
  )
  for (const userId of everywhere) await svc.sessions.revokeAll(userId)
  const ended = new Map<string, number>()
  for (const entry of parsed) {
    if (entry.kind !== 'session' || everywhere.has(entry.userId) || endSession === null) continue
    if (await endSession(entry.userId, entry.sid)) ended.set(entry.userId, (ended.get(entry.userId) ?? 0) + 1)
  }
  const count = [...ended.values()].reduce((sum, one) => sum + one, 0)
  return {
    userIds: [...everywhere, ...ended.keys()],
    everywhere: [...everywhere],
    ended,
    count: everywhere.size > 0 ? null : count,
  }
}
