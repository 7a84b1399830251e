import type { Context } from '../../core/context'
import { askSignIn } from '../../core/sign-in/decide'
import { completeSignIn } from '../../core/sign-in/complete'
import { AuthError } from '../../infra/errors'
import { safeCallbackUrl } from '../../infra/urls/callback-url'
import { createPasswordUser } from './new-user'
import { withoutNul } from '../accounts/identity-text'
import { addressWithinLimit, ipWithinLimit } from '../email/runtime'
import { hashingBusy } from './answers'
import { identifierField, readIdentifier } from './identifier'
import { dropLink, keepLink } from './links'
import { likeASentMail, sendPasswordMail } from './mail'
import { field, showPage } from '../../core/show-page'
import { normalizePassword } from './policy'
import type { PasswordRuntime } from './runtime'

/** `GET /password/signup`: the sign-up form (404 when `accounts.signUp` is false). */
export async function signUpPage(ctx: Context, runtime: PasswordRuntime): Promise<void> {
  refuseWithoutSignUp(runtime)
  await showForm(ctx, runtime, 200, {})
}

/**
 * `POST /password/signup` (CSRF checked): the policy first (it says nothing about anyone's
 * account), then the app's signIn callback and the mail limits, then the password is hashed. With
 * an e-mail identifier nothing is created yet: a new address gets a link that creates the account
 * once opened (whoever typed an address first gains nothing), an address that has an account gets
 * a mail telling its owner someone tried; both answer the same "check your e-mail", after a mail
 * went out either way. With a user name the account is created at once (a name is no secret: a
 * taken one is said so).
 */
export async function signUp(ctx: Context, runtime: PasswordRuntime): Promise<void> {
  refuseWithoutSignUp(runtime)
  const started = performance.now()
  const typed = field(ctx, identifierField(runtime), 1024)
  const name = withoutNul(field(ctx, 'name', 200)?.trim() || null)
  const identifier = readIdentifier(runtime, typed)
  const raw = field(ctx, 'password', 4 * runtime.provider.maxLength + 4) ?? ''
  const password = normalizePassword(raw)
  if (identifier === null) return showForm(ctx, runtime, 400, { value: typed, name, invalidIdentifier: true })
  const check = await runtime.policy.check(password, { identifier })
  if (!check.ok) return showForm(ctx, runtime, 400, { value: typed, name, reasons: check.reasons })

  const user = { id: identifier, name, email: runtime.provider.identifier === 'email' ? identifier : null }
  const account = { provider: runtime.provider.id, type: 'credentials' as const, providerAccountId: identifier }
  const decision = await askSignIn(ctx, { user, account })
  if (decision.kind === 'deny') return ctx.redirectToError(decision.code)
  if (decision.kind === 'redirect')
    return ctx.redirect(safeCallbackUrl(decision.url, ctx.base, ctx.svc.config.redirectOrigins))

  if (runtime.provider.identifier === 'username') return signUpByName(ctx, runtime, identifier, name, password)
  const mail = runtime.mail!
  if (!(await ipWithinLimit(mail, ctx.req.ip)) || !(await addressWithinLimit(mail, identifier))) {
    await likeASentMail(runtime, started)
    ctx.svc.log('warn', 'password.signup_refused', 'no sign-up mail was sent: over a mail limit')
    return sent(ctx, 'signup')
  }
  const hash = await runtime.gate.run(() => runtime.hashing.hash(password))
  if (hash === null) return hashingBusy(ctx)
  const identity = { provider: runtime.provider.id, issuer: '', subject: identifier }
  const [known, owner] = await Promise.all([
    runtime.accounts.call((store) => store.findAccount(identity)),
    runtime.accounts.call((store) => store.findUserByVerifiedEmail(identifier)),
  ])
  const callbackUrl = await ctx.callbackTarget()
  if (known !== null || owner !== null) {
    const signInUrl = ctx.serviceUrl('/signin', { callbackUrl })
    const expires = new Date(Date.now() + mail.provider.maxAge * 1000)
    if (!(await sendPasswordMail(ctx, runtime, 'signupExists', identifier, signInUrl, expires)))
      return ctx.redirectToError('EmailSignin')
    ctx.svc.log('info', 'password.signup_exists', 'a sign-up with an address that has an account: its owner was told')
    return sent(ctx, 'signup')
  }
  const link = await keepLink(runtime, 'signup', identifier, { h: hash, n: name, u: callbackUrl }, mail.provider.maxAge)
  const url = ctx.serviceUrl('/password/confirm', { token: link.token, email: identifier })
  if (!(await sendPasswordMail(ctx, runtime, 'signup', identifier, url, new Date(link.expires * 1000)))) {
    await dropLink(runtime, link.key)
    return ctx.redirectToError('EmailSignin')
  }
  ctx.svc.log('info', 'password.signup_sent', 'a sign-up link was sent')
  sent(ctx, 'signup')
}

/** A user name's account, made at once; a taken name is said so (names are not secrets). */
async function signUpByName(
  ctx: Context,
  runtime: PasswordRuntime,
  identifier: string,
  name: string | null,
  password: string,
): Promise<void> {
  const hash = await runtime.gate.run(() => runtime.hashing.hash(password))
  if (hash === null) return hashingBusy(ctx)
  const created = await createPasswordUser(runtime, ctx.svc, { identifier, name, email: null, hash })
  if (created.kind !== 'created') return showForm(ctx, runtime, 409, { value: identifier, name, taken: true })
  await completeSignIn(ctx, {
    user: { id: identifier, name, email: null, image: null },
    account: { provider: runtime.provider.id, type: 'credentials', providerAccountId: identifier },
    identity: { subject: identifier, label: identifier },
    callbackUrl: await ctx.callbackTarget(),
  })
}

/** "Check your e-mail": a redirect to the page (or `{"url"}`), so a reload posts nothing again. */
export function sent(ctx: Context, kind: 'signup' | 'reset'): void {
  ctx.redirect(ctx.serviceUrl('/password/sent', { kind }))
}

function refuseWithoutSignUp(runtime: PasswordRuntime): void {
  if (!runtime.accounts.signUp) throw new AuthError('NotFound', 'sign-up is off (accounts.signUp is false)')
}

interface FormState {
  value?: string | undefined
  name?: string | null
  reasons?: readonly string[]
  invalidIdentifier?: boolean
  taken?: boolean
}

async function showForm(ctx: Context, runtime: PasswordRuntime, status: number, state: FormState): Promise<void> {
  const callbackUrl = await ctx.callbackTarget()
  await showPage(ctx, status, 'password-signup', {
    base: ctx.base.href,
    action: ctx.serviceUrl('/password/signup'),
    csrfToken: ctx.csrfToken(),
    callbackUrl,
    identifier: runtime.provider.identifier,
    ...(state.value === undefined ? {} : { value: state.value }),
    ...(state.name ? { name: state.name } : {}),
    ...(state.reasons ? { reasons: state.reasons as never } : {}),
    ...(state.invalidIdentifier ? { invalidIdentifier: true } : {}),
    ...(state.taken ? { taken: true } : {}),
    minLength: runtime.provider.minLength,
    maxLength: runtime.provider.maxLength,
    signInUrl: ctx.serviceUrl('/signin', { callbackUrl }),
  })
}
