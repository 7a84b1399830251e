import { open, seal } from '../../infra/crypto/jwe'
import type { KeyRing } from '../../infra/crypto/keys'
import { digest } from '../../infra/crypto/mac'
import { MAX_TOKEN_CHARS } from '../oauth/refresh'
import type { OAuthTokens } from '../oauth/types'

/** A provider's tokens as the package keeps them for one session. */
export interface TokenSet {
  readonly provider: string
  readonly accessToken: string
  readonly refreshToken?: string
  readonly idToken?: string
  /** Seconds since the epoch; absent when the provider gave no expiry (GitHub's OAuth apps). */
  readonly expiresAt?: number
  readonly tokenType?: string
  readonly scope?: string
  /**
   * Seconds the access token was given to live, when a refresh answered it: one that lives no
   * longer than `minValidity` is used until it expires (less a margin), not refreshed on every call.
   */
  readonly lifetime?: number
}

/** What `getAccessToken` resolves to: never the refresh or ID token. */
export interface AccessToken {
  readonly accessToken: string
  /** Seconds since the epoch; null when the provider gave no expiry. */
  readonly expiresAt: number | null
  readonly tokenType: string
  readonly scope: string | null
}

/** The token endpoint's answer as a set; `previous` gives what the answer left out (a refresh without a new refresh or ID token). */
export function toTokenSet(provider: string, tokens: OAuthTokens, previous?: TokenSet, lifetime?: number): TokenSet {
  // An empty field is an absent one: a set keeps no empty string (it would not open again).
  const refreshToken = text(tokens.refresh_token) ?? previous?.refreshToken
  const idToken = text(tokens.id_token) ?? previous?.idToken
  const scope = text(tokens.scope) ?? previous?.scope
  const tokenType = text(tokens.token_type)
  return Object.freeze({
    provider,
    accessToken: tokens.access_token,
    ...(refreshToken === undefined ? {} : { refreshToken }),
    ...(idToken === undefined ? {} : { idToken }),
    ...(tokens.expires_at === undefined ? {} : { expiresAt: tokens.expires_at }),
    ...(tokenType === undefined ? {} : { tokenType }),
    ...(scope === undefined ? {} : { scope }),
    ...(lifetime === undefined ? {} : { lifetime }),
  })
}

const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined)

export function toAccessToken(set: TokenSet): AccessToken {
  return Object.freeze({
    accessToken: set.accessToken,
    expiresAt: set.expiresAt ?? null,
    tokenType: set.tokenType ?? 'Bearer',
    scope: set.scope ?? null,
  })
}

/**
 * Which set this is, for the compare-and-write: a SHA-256 over its access and refresh tokens (both
 * random values of the provider's, so the hash tells nothing about them), the same whatever secret
 * seals the set.
 */
export function fingerprint(set: TokenSet): string {
  return digest(`${set.accessToken.length}:${set.accessToken}${set.refreshToken ?? ''}`)
}

/** Sealed under the provider-tokens key: a dump of Redis (or a session store) does not show them. */
export function sealTokens(ring: KeyRing, set: TokenSet): string {
  return seal(ring.current, {
    p: set.provider,
    at: set.accessToken,
    rt: set.refreshToken,
    it: set.idToken,
    exp: set.expiresAt,
    tt: set.tokenType,
    sc: set.scope,
    lt: set.lifetime,
  })
}

/** Sets sealed before empty fields were dropped hold `""`: it opens as absent, and they open again. */
const optionalText = (value: unknown) => value === undefined || typeof value === 'string'
const optionalSeconds = (value: unknown) => value === undefined || (typeof value === 'number' && Number.isFinite(value))

/** The set sealed in `sealed`, or null for anything that does not open to one. */
export function openTokens(ring: KeyRing, sealed: unknown): TokenSet | null {
  const claims = open(ring, sealed)
  if (!claims) return null
  const { p, at, rt, it, exp, tt, sc, lt } = claims
  if (typeof p !== 'string' || typeof at !== 'string' || at === '') return null
  if (![rt, it, tt, sc].every(optionalText) || ![exp, lt].every(optionalSeconds)) return null
  return toTokenSet(
    p,
    {
      access_token: at,
      ...(rt === undefined ? {} : { refresh_token: rt as string }),
      ...(it === undefined ? {} : { id_token: it as string }),
      ...(exp === undefined ? {} : { expires_at: exp as number }),
      ...(tt === undefined ? {} : { token_type: tt as string }),
      ...(sc === undefined ? {} : { scope: sc as string }),
    },
    undefined,
    lt as number | undefined,
  )
}

const KEPT_FIELDS = ['access_token', 'refresh_token', 'id_token', 'token_type', 'scope'] as const

/**
 * The set of a sign-in's account (its token response, lib/features/oauth/profile.ts), null without
 * an access token, or why it cannot be kept: a field over MAX_TOKEN_CHARS, as a refresh answer's
 * (the set is sealed into Redis or the session cookie; a provider answering so is broken or hostile).
 */
export function fromAccount(account: {
  provider: string
  [field: string]: unknown
}): { ok: true; set: TokenSet } | { ok: false; reason: string } | null {
  const { access_token: at, refresh_token: rt, id_token: it, expires_at: exp, token_type: tt, scope: sc } = account
  if (typeof at !== 'string' || at === '') return null
  const large = KEPT_FIELDS.find((field) => {
    const value = account[field]
    return typeof value === 'string' && value.length > MAX_TOKEN_CHARS
  })
  if (large !== undefined)
    return { ok: false, reason: `the token endpoint answered a ${large} over ${MAX_TOKEN_CHARS} characters` }
  const tokens: OAuthTokens = { access_token: at }
  if (text(rt)) tokens.refresh_token = text(rt)
  if (text(it)) tokens.id_token = text(it)
  if (typeof exp === 'number' && Number.isFinite(exp)) tokens.expires_at = exp
  if (text(tt)) tokens.token_type = text(tt)
  if (text(sc)) tokens.scope = text(sc)
  return { ok: true, set: toTokenSet(account.provider, tokens) }
}
