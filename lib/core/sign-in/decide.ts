import type { Context } from '../context'
import { isAuthError, type AuthErrorCode } from '../../infra/errors'
import { errorText } from '../../infra/logger'
import type { ProviderUser } from '../../infra/config/providers'
import { toSessionData } from '../session/record'
import { isPlainObject, kindOf } from '../../infra/util/object'

export type Decision =
  | { kind: 'allow'; userId?: string; data?: Record<string, unknown> }
  | { kind: 'redirect'; url: string }
  | { kind: 'deny'; code: AuthErrorCode }

export interface SignInQuestion {
  user: ProviderUser
  account: {
    provider: string
    type: 'oauth' | 'email' | 'webauthn' | 'credentials'
    providerAccountId: string
    [field: string]: unknown
  }
  profile?: Record<string, unknown>
  email?: { verificationRequest: boolean }
}

/**
 * The app's signIn callback, failing closed: `true` (or the `{ userId?, data? }` form, exactly)
 * signs in, a string redirects, `false` refuses. Anything else (null, undefined, 0, NaN, another
 * object) and any thrown error refuse with AccessDenied, or with the code of a thrown AuthError.
 */
export async function askSignIn(ctx: Context, question: SignInQuestion): Promise<Decision> {
  const { signIn } = ctx.svc.config.callbacks
  if (!signIn) return { kind: 'allow' }
  let answer: unknown
  try {
    answer = await signIn(question)
  } catch (error) {
    // The app's exception may quote anything (a row, a stack, a request): outside text for the log.
    const why = typeof (error as { message?: unknown } | null)?.message === 'string' ? errorText(error) : kindOf(error)
    ctx.svc.log('warn', 'callback.error', `callbacks.signIn threw, so the sign-in was refused: ${why}`)
    return { kind: 'deny', code: isAuthError(error) ? error.code : 'AccessDenied' }
  }
  if (answer === true) return { kind: 'allow' }
  if (answer === false) return { kind: 'deny', code: 'AccessDenied' }
  if (typeof answer === 'string') return { kind: 'redirect', url: answer }
  const grant = asGrant(answer)
  if (grant) return { kind: 'allow', ...grant }
  ctx.svc.log(
    'warn',
    'callback.error',
    `callbacks.signIn answered ${kindOf(answer)}, so the sign-in was refused: only true, false, a URL or { userId, data } are understood`,
  )
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
