import { decodeJws } from '../../infra/crypto/jws'
import { errorText, outsideText } from '../../infra/logger'
import { parseJsonObject } from '../../infra/util/json'
import { sentUnanswered } from './deadline'
import { strategyOf, tokenClientOf } from './passport/internals'
import { verifyIdToken, type IdTokenResult } from './id-token'
import { toTokens } from './profile'
import type { OAuthRegistry, OAuthRuntime, Ready } from './registry'
import type { OAuthTokens } from './types'

/**
 * The refresh_token grant (RFC 6749 section 6) at a provider's token endpoint, through the
 * strategy's own passport-oauth2 client: the same endpoint, client authentication, deadline
 * (`providerTimeout`) and size cap (./deadline.ts) as the sign-in's token request.
 */

export type Refreshed =
  | { ok: true; tokens: OAuthTokens; dropped?: string }
  /**
   * `final`: the grant is gone (invalid_grant): asking again cannot help. `uncertain`: the request
   * was sent and no answer came in time: the provider may have spent the refresh token.
   */
  | { ok: false; final: boolean; reason: string; uncertain?: true }

/**
 * A token (or any field of a token answer kept) longer than this is not one: a provider that answers
 * so is broken or hostile. The sign-in's tokens are held to it too (lib/features/provider-tokens/token-set.ts).
 */
export const MAX_TOKEN_CHARS = 16 * 1024

export interface RefreshLimits {
  /**
   * When the whole refresh must be over, in ms since the epoch: under the refresh lock, its end less
   * the time the write needs (Infinity without a lock). The token request is not sent with less
   * than `requestMs` left, and the new ID token's check (which may fetch the keys) stops there.
   */
  readonly deadline: number
  /** The token request's own deadline (`providerTimeout`). */
  readonly requestMs: number
  /** The ID token kept so far: a new one is kept only for the same subject (OpenID Connect Core 12.2). */
  readonly idToken?: string
}

export async function refreshGrant(
  registry: OAuthRegistry,
  runtime: OAuthRuntime,
  refreshToken: string,
  limits: RefreshLimits,
): Promise<Refreshed> {
  const ready = await runtime.ready()
  if (!ready) return { ok: false, final: false, reason: 'the provider could not be set up (see the discovery error)' }
  // The refresh token must not be spent by a request whose answer could come after the lock ends:
  // another instance would then spend it too (with rotation, the provider revokes the grant).
  if (limits.deadline - Date.now() < limits.requestMs)
    return { ok: false, final: false, reason: 'too little time was left under the refresh lock to ask the provider' }
  const client = tokenClientOf(strategyOf(registry.passport, runtime.provider.id))
  if (!client) return { ok: false, final: false, reason: 'the strategy has no passport-oauth2 client' }
  const answer = await new Promise<{ error: unknown; access?: unknown; refresh?: unknown; params?: unknown }>(
    (resolve) => {
      try {
        client.getOAuthAccessToken(refreshToken, { grant_type: 'refresh_token' }, (error, access, refresh, params) =>
          resolve({ error, access, refresh, params }),
        )
      } catch (error) {
        resolve({ error })
      }
    },
  )
  if (answer.error) return failure(answer.error)
  const { access, refresh, params } = answer
  if (typeof access !== 'string' || access === '' || access.length > MAX_TOKEN_CHARS)
    return { ok: false, final: false, reason: 'the token endpoint answered without a usable access token' }
  const tokens = toTokens(access, typeof refresh === 'string' && refresh !== '' ? refresh : undefined, params)
  // Every field kept is as bounded as the access token: the set is sealed into Redis or the cookie.
  const kept = [tokens.refresh_token, tokens.id_token, tokens.token_type, tokens.scope]
  if (kept.some((field) => field !== undefined && field.length > MAX_TOKEN_CHARS))
    return { ok: false, final: false, reason: 'the token endpoint answered a field too large to keep' }
  const { provider } = runtime
  if (tokens.id_token === undefined || !ready.oidc || provider.protocol !== 'oidc') return { ok: true, tokens }
  // A new ID token is kept only when it verifies; the rest of the answer is kept all the same (with
  // rotation its refresh token is the only one left).
  const checked = await checkIdToken(tokens.id_token, ready.oidc, provider.clientId, limits)
  if (checked.ok) return { ok: true, tokens }
  delete tokens.id_token
  return { ok: true, tokens, dropped: `its new ID token was not kept: ${checked.reason}` }
}

/**
 * The refreshed ID token's checks, within the time left: verifying it may fetch the issuer's keys
 * (an unknown kid), and the new tokens must be written before the lock ends, ID token or not.
 */
async function checkIdToken(
  idToken: string,
  oidc: NonNullable<Ready['oidc']>,
  clientId: string,
  limits: RefreshLimits,
): Promise<IdTokenResult> {
  const left = limits.deadline - Date.now()
  if (left <= 0) return { ok: false, reason: 'no time was left to verify it' }
  const verifying = verifyIdToken(idToken, { issuer: oidc.metadata.issuer, clientId }, oidc.jwks).catch(
    (): IdTokenResult => ({ ok: false, reason: 'it could not be verified' }),
  )
  // Without a lock (Infinity) each key fetch has its own deadline; setTimeout would take Infinity for 1 ms.
  if (!Number.isFinite(left)) return sameSubject(await verifying, limits.idToken)
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<IdTokenResult>((resolve) => {
    timer = setTimeout(
      () => resolve({ ok: false, reason: 'the issuer keys did not arrive in time to verify it' }),
      Math.min(left, MAX_TIMER_MS),
    )
  })
  return sameSubject(await Promise.race([verifying, late]).finally(() => clearTimeout(timer)), limits.idToken)
}

/** setTimeout's longest delay (a longer one fires at once). */
const MAX_TIMER_MS = 2 ** 31 - 1

/** A refreshed ID token must name the subject of the one kept (OpenID Connect Core 12.2). */
function sameSubject(verified: IdTokenResult, kept: string | undefined): IdTokenResult {
  if (!verified.ok) return verified
  const previous = kept === undefined ? undefined : decodeJws(kept)?.payload
  if (previous !== undefined && previous?.sub !== verified.claims.sub)
    return { ok: false, reason: 'it names another subject than the ID token kept (OpenID Connect Core 12.2)' }
  return verified
}

/**
 * A log-safe reason, and whether it is final. Only the OAuth error code of the provider's answer is
 * read (an error_description may quote the request back, refresh token and client secret included).
 */
function failure(error: unknown): Refreshed {
  const answer = error as { statusCode?: unknown; data?: unknown; message?: unknown }
  if (typeof answer.statusCode === 'number') {
    const body = typeof answer.data === 'string' ? parseJsonObject(answer.data.slice(0, 65536)) : null
    const code = typeof body?.error === 'string' && /^[\w.-]{1,64}$/.test(body.error) ? body.error : undefined
    return {
      ok: false,
      final: code === 'invalid_grant',
      reason: `the token endpoint answered HTTP ${answer.statusCode}${code ? ` (${code})` : ''}`,
    }
  }
  const cause = outsideText(errorText(error))
  if (sentUnanswered(error))
    return {
      ok: false,
      final: false,
      uncertain: true,
      reason: `the token request was sent and got no answer in time (the provider may have spent the refresh token): ${cause}`,
    }
  return { ok: false, final: false, reason: `the token request failed: ${cause}` }
}
