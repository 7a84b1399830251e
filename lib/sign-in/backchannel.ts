import type { Context } from '../context'
import { decodeJws } from '../crypto/jws'
import { verifyLogoutToken, JTI_KEPT_SECONDS } from '../providers/oauth/logout-token'
import type { OAuthRuntime } from '../providers/oauth/registry'
import type { Services } from '../services'

/**
 * OpenID Connect Back-Channel Logout 1.0 over our revocations. At sign-in with an oidc() provider,
 * the ID token's `sid` and `sub` are remembered with the user id the sign-in gave (the signIn
 * callback may choose another than `{provider}:{sub}`). A valid logout token later names that sid
 * (or, without one, the sub), and every session of those users ends on every instance through
 * `sessions.revokeAll`: database sessions deleted, cookie sessions refused from their user's
 * revocation time on. So GET /session pays nothing more than it did: the revocation time it
 * already checks is the one that moves.
 */

/** The names a provider's session and subject are remembered under (a NUL cannot be in a provider id). */
function nameOf(providerId: string, kind: 'sid' | 'sub', value: string): string {
  return `${providerId}\0${kind}\0${value}`
}

/**
 * Remembers which provider session and subject signed `userId` in, for as long as a session can
 * live. `idToken` is the sign-in's ID token, already verified.
 */
export async function rememberProviderSession(
  svc: Services,
  providerId: string,
  idToken: unknown,
  userId: string,
): Promise<void> {
  const claims = decodeJws(idToken)?.payload
  if (!claims) return
  const ttl = svc.config.session.maxLifetime
  for (const kind of ['sid', 'sub'] as const) {
    const value = claims[kind]
    if (typeof value === 'string' && value !== '' && value.length <= 1024)
      await svc.logoutIndex.remember(nameOf(providerId, kind, value), userId, ttl)
  }
}

export type LogoutOutcome = { ok: true; userIds: string[] } | { ok: false; reason: string }

/**
 * A logout token posted to this provider's route: validated (providers/oauth/logout-token.ts), its
 * `jti` spent, then every session of the users its sid (else its sub) signed in ends. Never throws.
 */
export async function endProviderSession(ctx: Context, runtime: OAuthRuntime, token: unknown): Promise<LogoutOutcome> {
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
    if (!(await svc.logoutIndex.firstUse(`${provider.id}\0${jti}`, JTI_KEPT_SECONDS)))
      return { ok: false, reason: 'its jti was used before (a replay)' }
    const userIds = await svc.logoutIndex.take(
      sid !== null ? nameOf(provider.id, 'sid', sid) : nameOf(provider.id, 'sub', sub!),
    )
    for (const userId of userIds) await svc.sessions.revokeAll(userId)
    return { ok: true, userIds }
  } catch {
    // The store did not answer (or the revocation failed part-way): §2.8 answers a failure with 400.
    return { ok: false, reason: 'the session store did not answer' }
  }
}
