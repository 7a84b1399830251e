import type { SessionRecord } from '../../infra/config/types'
import type { Context } from '../../core/context'
import type { PasskeyRuntime } from './runtime'

/**
 * Adding a passkey needs a recent sign-in (`passkey({ registrationMaxAge })`). A passkey outlives
 * sign-out everywhere and `revokeSessions`, so a session cookie copied after its sign-in (a shared
 * computer, a script that read it) must not add one of its own. The sign-in time is the record's
 * `createdAt` (the cookie's `auth_time`, the database record's own field), which renewals, updates
 * and sign-out of the others (manager.revokeOthers) keep: nothing is read that `GET /session` does
 * not read already.
 */
export function signedInRecently(record: SessionRecord, runtime: PasskeyRuntime, grace = 0): boolean {
  return Date.now() / 1000 - (record.authTime ?? record.createdAt) <= runtime.provider.registrationMaxAge + grace
}

/**
 * Where a user signs in again before adding a passkey: the sign-in page (the app's `pages.signIn`
 * when set) with `error=SessionRequired`, and back to this request's validated callbackUrl.
 */
export async function signInAgainUrl(ctx: Context): Promise<string> {
  const url = new URL(ctx.svc.config.pages.signIn ?? `${ctx.base.href}/signin`, ctx.base.origin)
  url.searchParams.set('callbackUrl', await ctx.callbackTarget())
  url.searchParams.set('error', 'SessionRequired')
  return url.href
}

/** Logs that a session too old to add a passkey was sent to sign in again (never the cookie). */
export function logSignInAgain(ctx: Context, record: SessionRecord, step: string): void {
  ctx.svc.log('info', 'passkey.reauth', `a passkey ${step} was refused: the session signed in too long ago`, {
    ...ctx.svc.userForLog(record.userId),
    signedInSecondsAgo: Math.round(Date.now() / 1000 - record.createdAt),
  })
}
