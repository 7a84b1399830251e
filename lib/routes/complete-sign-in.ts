import { isAuthError, type AuthErrorCode } from '../errors'
import { safeCallbackUrl } from '../http/callback-url'
import { setCookie } from '../http/cookies'
import { sendRedirect } from '../http/reply'
import { rebindFlows } from '../providers/flow'
import { toSessionData } from '../session/record'
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
  const decision = await askSignIn(ctx, input)
  if (decision.kind === 'deny') return sendRedirect(ctx.res, serviceUrl(ctx, '/error', { error: decision.code }))
  if (decision.kind === 'redirect') return sendRedirect(ctx.res, safeCallbackUrl(decision.url, ctx.base, svc.config.trustedOrigins))

  const { id, ...user } = input.user
  const record = await svc.sessions.create(sessionCookie(ctx), {
    userId: decision.userId ?? `${input.account.provider}:${id}`,
    user: { name: user.name ?? null, email: user.email ?? null, image: user.image ?? null },
    ...(decision.data ? { data: decision.data } : {}),
  })
  renewCsrf(ctx, input.flowId)
  svc.log('info', 'session.created', 'signed in', { userId: record.userId, provider: input.account.provider })
  await emit(ctx, 'signIn', svc.config.events.signIn, { record })
  sendRedirect(ctx.res, input.callbackUrl)
}

type Decision =
  | { kind: 'allow'; userId?: string; data?: Record<string, unknown> }
  | { kind: 'redirect'; url: string }
  | { kind: 'deny'; code: AuthErrorCode }

/**
 * The app's signIn callback, failing closed: `true` (or the `{ userId?, data? }` form, exactly)
 * signs in, a string redirects, `false` refuses. Anything else (null, undefined, 0, NaN, another
 * object) and any thrown error refuse with AccessDenied, or with the code of a thrown AuthError.
 */
async function askSignIn(ctx: Context, input: SignInInput): Promise<Decision> {
  const { signIn } = ctx.svc.config.callbacks
  if (!signIn) return { kind: 'allow' }
  let answer: unknown
  try {
    answer = await signIn({ user: input.user, account: input.account, ...(input.profile ? { profile: input.profile } : {}) })
  } catch (error) {
    ctx.svc.log('warn', 'callback.error', `callbacks.signIn threw, so the sign-in was refused: ${error instanceof Error ? error.message : typeOf(error)}`)
    return { kind: 'deny', code: isAuthError(error) ? error.code : 'AccessDenied' }
  }
  if (answer === true) return { kind: 'allow' }
  if (answer === false) return { kind: 'deny', code: 'AccessDenied' }
  if (typeof answer === 'string') return { kind: 'redirect', url: answer }
  const grant = asGrant(answer)
  if (grant) return { kind: 'allow', ...grant }
  ctx.svc.log('warn', 'callback.error', `callbacks.signIn answered ${typeOf(answer)}, so the sign-in was refused: only true, false, a URL or { userId, data } are understood`)
  return { kind: 'deny', code: 'AccessDenied' }
}

/**
 * `{ userId?, data? }` with at least one of them and nothing else, each present key well-formed
 * (`{ userId: undefined }`, from a lookup that found nobody, is refused); else null.
 */
function asGrant(value: unknown): { userId?: string; data?: Record<string, unknown> } | null {
  if (!isPlainObject(value)) return null
  const keys = Object.keys(value)
  if (keys.length === 0 || !keys.every((key) => key === 'userId' || key === 'data')) return null
  const { userId } = value
  if ('userId' in value && (typeof userId !== 'string' || userId === '')) return null
  const data = 'data' in value ? toSessionData(value.data) : undefined
  if (data === null) return null
  return { ...(typeof userId === 'string' ? { userId } : {}), ...(data === undefined ? {} : { data }) }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false
  const proto = Object.getPrototypeOf(value) as unknown
  return proto === Object.prototype || proto === null
}

/** The kind of an unexpected value, for a log line (never the value itself). */
function typeOf(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'number' && Number.isNaN(value)) return 'NaN'
  if (typeof value === 'object') return 'an object'
  return typeof value === 'number' ? `the number ${value}` : typeof value
}

/** A CSRF token known before sign-in is not carried into the session. */
function renewCsrf(ctx: Context, completedFlow: string | undefined): void {
  const def = ctx.cookieSet.csrfToken
  const previous = ctx.svc.csrf.read(ctx.cookies[def.name])
  const issued = ctx.svc.csrf.issue()
  setCookie(ctx.res, def, issued.cookieValue)
  if (previous !== null) rebindFlows(ctx.svc.flowKeys, flowCookies(ctx), previous, issued.token, completedFlow)
}
