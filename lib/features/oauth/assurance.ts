import { CLOCK_SKEW } from './id-token'
import type { OAuthProvider } from './types'

/**
 * What an OpenID provider says of how the user signed in, and what we ask of it: a fresh sign-in
 * for a step-up (`prompt=login`, `max_age=0`, then the ID token's `auth_time`), an assurance level
 * (`acr_values`), and the methods it names (`amr`, RFC 8176), which the sign-in passes on as its
 * own (`SignInInput.amr`): `mfa` among them, or an `acr` the app listed, counts as two factors.
 * Plain OAuth 2 and Passport strategies have no verified ID token to say any of it: they get none
 * of these parameters, and their sign-ins name no method.
 */

/** At most this many of the ID token's methods are kept (the session's `amr` holds 16, and a second factor adds its own). */
const MAX_METHODS = 8
/** An `amr` longer than this is not a list of methods: it is ignored whole. */
const MAX_AMR = 32
/** An RFC 8176 method, or a provider's own short name for one. */
const METHOD = /^[\w.:-]{1,32}$/

/**
 * The authorization parameters of this provider's request, which replace the app's extra
 * parameters of the same names: its `acr_values`, and for a step-up `prompt=login` and
 * `max_age=0`. A step-up asks for a sign-in now, whatever `requireAuth`'s maxAge: the session's
 * authTime becomes the sign-in's, and a sign-in made for a step-up must be fresh.
 */
export function assuranceParams(provider: OAuthProvider, reauth: boolean): Record<string, string> {
  if (provider.protocol !== 'oidc') return {}
  return {
    ...(provider.acrValues ? { acr_values: provider.acrValues.join(' ') } : {}),
    ...(reauth ? { prompt: 'login', max_age: '0' } : {}),
  }
}

/**
 * A step-up's ID token must say the user signed in after the flow started (OIDC Core 3.1.2.1: with
 * `max_age` the provider must send `auth_time`); one that says nothing, or an earlier time, is a
 * provider that let an old sign-in stand.
 */
export function freshAuthTime(
  claims: Record<string, unknown>,
  reauthAt: number,
): { ok: true } | { ok: false; reason: string } {
  const authTime = claims.auth_time
  if (typeof authTime !== 'number' || !Number.isFinite(authTime))
    return { ok: false, reason: 'a re-authentication whose ID token has no auth_time: refused' }
  if (authTime < reauthAt - CLOCK_SKEW)
    return {
      ok: false,
      reason: 'a re-authentication whose ID token says the user signed in before it started: refused',
    }
  if (authTime > Math.floor(Date.now() / 1000) + CLOCK_SKEW)
    return { ok: false, reason: 'a re-authentication whose ID token has an auth_time in the future: refused' }
  return { ok: true }
}

/**
 * The methods of a verified ID token: its `amr` values that are short names (a list that is not
 * one, or is too long, is ignored whole; never an exception), at most MAX_METHODS of them, and
 * `mfa` when the `amr` names it or the `acr` is one of the provider's `acrValues`.
 */
export function methodsOfIdToken(claims: Record<string, unknown>, acrValues: readonly string[] | undefined): string[] {
  const { amr, acr } = claims
  const named = Array.isArray(amr) && amr.length <= MAX_AMR ? amr : []
  const methods = [
    ...new Set(named.filter((method): method is string => typeof method === 'string' && METHOD.test(method))),
  ]
  const acrMatches = typeof acr === 'string' && acrValues !== undefined && acrValues.includes(acr)
  const twoFactors = methods.includes('mfa') || acrMatches
  const kept = methods.filter((method) => method !== 'mfa').slice(0, MAX_METHODS)
  return twoFactors ? [...kept, 'mfa'] : kept
}

/**
 * When the user last signed in at the provider, by a verified ID token's `auth_time`: for the
 * session's `authTime`, so that a sign-in the provider let stand on an older one of its own does
 * not look fresh to `requireAuth({ maxAge })`. Undefined when it says nothing usable (then the
 * sign-in is dated now); never later than now.
 */
export function authTimeOfIdToken(claims: Record<string, unknown>): number | undefined {
  const authTime = claims.auth_time
  const now = Math.floor(Date.now() / 1000)
  if (typeof authTime !== 'number' || !Number.isFinite(authTime) || authTime <= 0) return undefined
  if (authTime > now + CLOCK_SKEW) return undefined
  return Math.min(Math.floor(authTime), now)
}
