import type { SignInResult } from '../config/types'
import { isAuthError } from '../errors'
import { safeCallbackUrl } from '../http/callback-url'
import { setCookie } from '../http/cookies'
import { sendRedirect } from '../http/reply'
import { rebindFlows } from '../providers/flow'
import type { ProviderUser } from '../providers/types'
import { emit, flowCookies, serviceUrl, sessionCookie, type Context } from './context'

export interface SignInInput {
  user: ProviderUser
  account: { provider: string; type: 'oauth' | 'email'; providerAccountId: string; [field: string]: unknown }
  profile?: Record<string, unknown>
  /** Already validated. */
  callbackUrl: string
  /** The OAuth flow that ends here (its cookie is already cleared). */
  flowId?: string
}

/**
 * The end of every sign-in, whatever the provider: the app's signIn callback decides; then a new
 * session, a new CSRF token (the other tabs' flows re-bound to it), the signIn event, and the
 * redirect to the callbackUrl.
 */
export async function completeSignIn(ctx: Context, input: SignInInput): Promise<void> {
  const { svc } = ctx
  const { signIn } = svc.config.callbacks
  let decision: SignInResult = true
  try {
    if (signIn) decision = await signIn({ user: input.user, account: input.account, ...(input.profile ? { profile: input.profile } : {}) })
  } catch (error) {
    const code = isAuthError(error) ? error.code : 'Callback'
    svc.log('error', 'callback.error', `callbacks.signIn threw: ${error instanceof Error ? error.message : String(error)}`)
    return sendRedirect(ctx.res, serviceUrl(ctx, '/error', { error: code }))
  }
  if (decision === false) return sendRedirect(ctx.res, serviceUrl(ctx, '/error', { error: 'AccessDenied' }))
  if (typeof decision === 'string') return sendRedirect(ctx.res, safeCallbackUrl(decision, ctx.base, svc.config.trustedOrigins))
  const chosen = typeof decision === 'object' && decision !== null ? decision : {}

  const { id, ...user } = input.user
  const record = await svc.sessions.create(sessionCookie(ctx), {
    userId: chosen.userId ?? `${input.account.provider}:${id}`,
    user: { name: user.name ?? null, email: user.email ?? null, image: user.image ?? null },
    ...(chosen.data ? { data: chosen.data } : {}),
  })
  renewCsrf(ctx, input.flowId)
  svc.log('info', 'session.created', 'signed in', { userId: record.userId, provider: input.account.provider })
  await emit(ctx, 'signIn', svc.config.events.signIn, { record })
  sendRedirect(ctx.res, input.callbackUrl)
}

/** A CSRF token known before sign-in is not carried into the session. */
function renewCsrf(ctx: Context, completedFlow: string | undefined): void {
  const def = ctx.cookieSet.csrfToken
  const previous = ctx.svc.csrf.read(ctx.cookies[def.name])
  const issued = ctx.svc.csrf.issue()
  setCookie(ctx.res, def, issued.cookieValue)
  if (previous !== null) rebindFlows(ctx.svc.flowKeys, flowCookies(ctx), previous, issued.token, completedFlow)
}
