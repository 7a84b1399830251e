import type { Context } from '../context'
import { setCookie } from '../../infra/http/cookies'
import { safeCallbackUrl } from '../../infra/urls/callback-url'
import { askSignIn, type SignInQuestion } from './decide'
import { rebindFlows } from './flow'

export interface SignInInput extends SignInQuestion {
  /** Already validated. */
  callbackUrl: string
  /** The OAuth flow that ends here (its cookie is already cleared). */
  flowId?: string
  /** Runs once the user id is decided, before the session is made (back-channel logout remembers it). */
  beforeSession?: (userId: string) => Promise<void>
  /** The user id unless the signIn callback chooses one; default `{provider}:{user.id}`. */
  userId?: string
  /**
   * Runs once the signIn callback allowed, before the session is made, with the user id the session
   * gets (a passkey sign-up keeps its passkey here); false refuses the sign-in (CredentialsSignin).
   */
  prepare?: (userId: string) => Promise<boolean>
  /**
   * Runs once the store keeps the new session, before its cookie is set, with the store's id of it
   * (null for cookie sessions); if it fails, the session is removed and the sign-in fails.
   */
  sessionStored?: (userId: string, sid: string | null) => Promise<void>
}

/**
 * The end of every sign-in, whatever the provider: the app's signIn callback decides; then a new
 * session, a new CSRF token (the other tabs' flows re-bound to it), the signIn event, and the
 * redirect to the callbackUrl.
 */
export async function completeSignIn(ctx: Context, input: SignInInput): Promise<void> {
  const { svc } = ctx
  const { user, account, profile } = input
  const decision = await askSignIn(ctx, { user, account, ...(profile ? { profile } : {}) })
  if (decision.kind === 'deny') return ctx.redirectToError(decision.code)
  if (decision.kind === 'redirect')
    return ctx.redirect(safeCallbackUrl(decision.url, ctx.base, svc.config.trustedOrigins))

  const userId = decision.userId ?? input.userId ?? `${account.provider}:${user.id}`
  if (input.prepare && !(await input.prepare(userId))) return ctx.redirectToError('CredentialsSignin')
  await input.beforeSession?.(userId)
  // The provider's tokens, when it keeps them (`tokens: true`): in Redis, or sealed in the session.
  const tokens = await svc.tokens.capture(account, userId)
  const { sessionStored } = input
  const record = await svc.sessions.create(
    ctx.sessionCookie(),
    {
      userId,
      user: { name: user.name ?? null, email: user.email ?? null, image: user.image ?? null },
      ...(decision.data ? { data: decision.data } : {}),
      provider: account.provider,
      ...(tokens === undefined ? {} : { tokens }),
    },
    sessionStored && ((sid) => sessionStored(userId, sid)),
  )
  renewCsrf(ctx, input.flowId)
  svc.log('info', 'session.created', 'signed in', {
    ...svc.userForLog(record.userId),
    provider: account.provider,
  })
  await ctx.emit('signIn', svc.config.events.signIn, { record })
  // A 302, or `{"url"}` for a client that asked for JSON (the passkey client posts with fetch).
  ctx.redirect(input.callbackUrl)
}

/** A CSRF token known before sign-in is not carried into the session. */
function renewCsrf(ctx: Context, completedFlow: string | undefined): void {
  const def = ctx.cookieSet.csrfToken
  const previous = ctx.svc.csrf.read(ctx.cookies[def.name])
  const issued = ctx.svc.csrf.issue()
  setCookie(ctx.res, def, issued.cookieValue)
  if (previous !== null) rebindFlows(ctx.svc.flowKeys, ctx.flowCookies(), previous, issued.token, completedFlow)
}
