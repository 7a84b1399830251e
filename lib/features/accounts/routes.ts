import { assured } from '../../core/assurance'
import type { Context } from '../../core/context'
import type { SessionRecord } from '../../infra/config/types'
import { clearLinkState, LINK_SECONDS, readLinkState, writeLinkState } from './link-cookie'
import { listWaysIn, unlinkWayIn } from './manage'
import type { AccountsRuntime } from './runtime'

/**
 * Linking and unlinking need a recent sign-in (`accounts.linkMaxAge`): a session cookie copied
 * after its sign-in (a shared computer, a script that read it) must not add a way in of its own,
 * nor remove the user's. The sign-in time is the record's `createdAt`, which renewals keep.
 */
function recent(record: SessionRecord, runtime: AccountsRuntime): boolean {
  return Date.now() / 1000 - (record.authTime ?? record.createdAt) <= runtime.linkMaxAge
}

/** Recent, and with as many factors proved as the user's changes need (a second, once enrolled: lib/core/assurance.ts). */
async function mayChange(ctx: Context, record: SessionRecord | null, runtime: AccountsRuntime): Promise<boolean> {
  return record !== null && recent(record, runtime) && (await assured(ctx, record))
}

/**
 * No session: the sign-in page with `SessionRequired`; one too old: with `ReauthRequired`, which
 * the page explains. Either way back to this request's validated callbackUrl afterwards.
 */
/**
 * No session (`SessionRequired`), or one too old for `step` (`ReauthRequired`): the sign-in page,
 * back to `back` (default: the callbackUrl) afterwards.
 */
export async function signInFirst(
  ctx: Context,
  record: SessionRecord | null,
  runtime: AccountsRuntime,
  step: string,
  back?: string,
): Promise<void> {
  if (record !== null)
    runtime.log('info', 'account.reauth', `${step} was refused: the session signed in too long ago`, {
      ...ctx.svc.userForLog(record.userId),
      signedInSecondsAgo: Math.round(Date.now() / 1000 - record.createdAt),
    })
  const url = new URL(ctx.svc.config.pages.signIn ?? `${ctx.base.href}/signin`, ctx.base.origin)
  url.searchParams.set('callbackUrl', back ?? (await ctx.callbackTarget()))
  url.searchParams.set('error', record === null ? 'SessionRequired' : 'ReauthRequired')
  ctx.redirect(url.href, 401)
}

/**
 * Before a provider's `POST /signin/:provider`: `link=true` (the form field, or the query NextAuth's
 * `signIn(id, options, { link: 'true' })` sends) from a recent session marks this browser's next
 * sign-in with that provider as a link to the session's user. True when it answered instead.
 * A sign-in that does not ask to link ends a link asked before and left at the provider: else it
 * would link whatever identity comes back to the signed-in user (a confirm path waiting goes on).
 */
export function startLink(runtime: AccountsRuntime): (ctx: Context) => Promise<boolean> {
  return async (ctx) => {
    if (ctx.param('link') !== 'true' || ctx.providerId === undefined) {
      if (readLinkState(ctx, runtime.keys)?.kind === 'link') clearLinkState(ctx)
      return false
    }
    const record = await ctx.svc.sessions.read(ctx.sessionCookie())
    if (record === null || !(await mayChange(ctx, record, runtime))) {
      await signInFirst(ctx, record, runtime, 'a link')
      return true
    }
    const exp = Math.floor(Date.now() / 1000) + LINK_SECONDS
    // An e-mail sign-in link works in any browser, so the link cookie alone would link whichever
    // address's link is opened here next (one an attacker sent): it names the address asked for.
    const address = ctx.param('email')
    const typed = address !== null && address.length <= 1024 ? { address } : {}
    writeLinkState(ctx, runtime.keys, { kind: 'link', userId: record.userId, provider: ctx.providerId, ...typed, exp })
    return false
  }
}

/**
 * `POST /unlink` with `accountId` (CSRF, a recent session): the way in goes unless it is the last
 * (`LastSignInMethod`); then back to the callbackUrl. An id that is not one of the user's own: 404.
 */
export async function unlink(ctx: Context, runtime: AccountsRuntime): Promise<void> {
  const record = await ctx.svc.sessions.read(ctx.sessionCookie())
  if (record === null || !(await mayChange(ctx, record, runtime))) return signInFirst(ctx, record, runtime, 'an unlink')
  const given = ctx.body.accountId
  const accountId = typeof given === 'string' && given !== '' && given.length <= 1024 ? given : null
  const way =
    accountId === null
      ? undefined
      : (await listWaysIn(runtime, ctx.svc, record.userId)).find(({ id }) => id === accountId)
  if (way === undefined || accountId === null) return ctx.redirectToError('Default', 404)
  for (const feature of ctx.svc.features)
    if (feature.guardWayIn && !(await feature.guardWayIn(ctx, record, { kind: 'unlink', way }))) return
  const result = await unlinkWayIn(runtime, ctx.svc, record.userId, accountId, (facts) => ctx.audit(facts, record))
  if (result === 'last') return ctx.redirectToError('LastSignInMethod', 409)
  if (result === 'missing') return ctx.redirectToError('Default', 404)
  ctx.redirect(await ctx.callbackTarget())
}
