import type { Context } from '../context'
import { open, seal } from '../../infra/crypto/jwe'
import { clearCookie, setCookie } from '../../infra/http/cookies'

/** Seconds a step-up's sign-in page keeps its user: as long as a sign-in flow lives. */
const REAUTH_SECONDS = 15 * 60

/**
 * Step-up (`requireAuth({ maxAge, aal })` sends a page load to `/signin?reauth=1`): the page, shown
 * to a signed-in user, seals who they are in this browser's `auth.reauth` cookie, and the next
 * sign-in here must be that user. Another user's sign-in is refused (`AccessDenied`) and the
 * session stays as it was: a step-up never switches accounts.
 */
export function markReauth(ctx: Context, userId: string): void {
  const exp = Math.floor(Date.now() / 1000) + REAUTH_SECONDS
  setCookie(ctx.res, ctx.cookieSet.reauth, seal(ctx.svc.reauthKey.current, { u: userId, exp }), REAUTH_SECONDS)
}

/**
 * Signed out: a step-up left open is over too, so that the next person at this browser signs in as
 * themselves (else they would be refused as not the user who signed out).
 */
export function endReauth(ctx: Context): void {
  if (ctx.cookies[ctx.cookieSet.reauth.name] !== undefined) clearCookie(ctx.res, ctx.cookieSet.reauth)
}

/** The user this browser's step-up expects, or null (none, expired, not ours); the cookie is spent. */
export function takeReauth(ctx: Context): string | null {
  if (ctx.cookies[ctx.cookieSet.reauth.name] === undefined) return null
  clearCookie(ctx.res, ctx.cookieSet.reauth)
  return peekReauth(ctx)
}

/**
 * The user this browser's step-up expects, or null, the cookie left as it is: for a provider that
 * asks for a fresh sign-in when it starts one (OpenID Connect's `prompt=login`).
 */
export function peekReauth(ctx: Context): string | null {
  const value = ctx.cookies[ctx.cookieSet.reauth.name]
  if (value === undefined) return null
  const opened = open(ctx.svc.reauthKey, value)
  const { u, exp } = opened ?? {}
  return typeof u === 'string' && typeof exp === 'number' && exp * 1000 > Date.now() ? u : null
}
