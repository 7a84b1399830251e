import type { Context } from '../../core/context'
import { sendRedirect } from '../../infra/http/reply'
import { addressWithinLimit, ipWithinLimit } from '../email/runtime'
import { emailIdentifier } from '../email/address'
import { hashingBusy } from './answers'
import { linkValues, refuse } from './confirm'
import { identifierField, readIdentifier } from './identifier'
import { keepLink, restoreLink, spendLink } from './links'
import { rememberDevice } from './device'
import { likeASentMail, sendPasswordMail } from './mail'
import { field, showPage } from '../../core/show-page'
import { normalizePassword } from './policy'
import { accountKey, passwordStamp, type PasswordRuntime } from './runtime'
import { sent } from './signup'

/** `GET /password/forgot`: the form that asks for the identifier. */
export async function forgotPage(ctx: Context, runtime: PasswordRuntime): Promise<void> {
  const value = ctx.query.get(identifierField(runtime))
  await showPage(ctx, 200, 'password-forgot', {
    base: ctx.base.href,
    action: ctx.serviceUrl('/password/forgot'),
    csrfToken: ctx.csrfToken(),
    callbackUrl: await ctx.callbackTarget(),
    identifier: runtime.provider.identifier,
    ...(value !== null && value.length <= 254 ? { value } : {}),
  })
}

/**
 * `POST /password/forgot` (CSRF checked): the same answer, no sooner, whether or not an account
 * has this identifier. When one has a password and a verified address, a single-use link (its
 * token hashed at rest, one hour) goes to that address; otherwise no mail goes out and the answer
 * waits as long as a sent mail takes.
 */
export async function forgot(ctx: Context, runtime: PasswordRuntime): Promise<void> {
  const started = performance.now()
  const identifier = readIdentifier(runtime, ctx.body[identifierField(runtime)])
  const mail = runtime.mail
  if (identifier === null || mail === null || !(await ipWithinLimit(mail, ctx.req.ip)))
    return quietly(ctx, runtime, started)
  const identity = { provider: runtime.provider.id, issuer: '', subject: identifier }
  const account = await runtime.accounts.call((store) => store.findAccount(identity))
  const user = account && (await runtime.accounts.call((store) => store.getUser(account.userId)))
  const to = user?.emailVerified ? emailIdentifier(user.email, mail.provider.normalizeIdentifier) : null
  if (account === null || to === null || !(await addressWithinLimit(mail, to))) return quietly(ctx, runtime, started)
  const callbackUrl = await ctx.callbackTarget()
  const link = await keepLink(
    runtime,
    'reset',
    to,
    { uid: account.userId, aid: account.id, c: callbackUrl, s: passwordStamp(runtime, account.passwordHash) },
    runtime.provider.resetMaxAge,
  )
  const url = ctx.serviceUrl('/password/reset', { token: link.token, email: to })
  if (!(await sendPasswordMail(ctx, runtime, 'reset', to, url, new Date(link.expires * 1000))))
    return ctx.redirectToError('EmailSignin')
  ctx.svc.log('info', 'password.reset_sent', 'a reset link was sent', { accountHash: accountKey(runtime, identifier) })
  sent(ctx, 'reset')
}

async function quietly(ctx: Context, runtime: PasswordRuntime, started: number): Promise<void> {
  await likeASentMail(runtime, started)
  sent(ctx, 'reset')
}

/** `GET /password/reset`, the mail's link: the form for the new password. It spends nothing. */
export async function resetPage(ctx: Context, runtime: PasswordRuntime): Promise<void> {
  const values = linkValues(ctx)
  if (!values.token || emailIdentifier(values.email, undefined) === null)
    return refuse(ctx, 'password.reset', values.token)
  await showResetForm(ctx, runtime, 200, values, undefined)
}

/**
 * `POST /password/reset` (CSRF checked): the link is spent once, first (a made-up one costs no
 * hashing); the new password meets the policy (else the form again, saying which rule failed, and
 * the link is kept) and is hashed, then set; every session of the user ends, on every instance,
 * the account's throttle starts again, this browser becomes a known device of the account, and
 * `passwordReset` runs. The browser then signs in with the new password.
 */
export async function reset(ctx: Context, runtime: PasswordRuntime): Promise<void> {
  const values = linkValues(ctx)
  if (!values.token || !values.email) return refuse(ctx, 'password.reset', values.token)
  const data = await spendLink(runtime, 'reset', values.token, values.email)
  const userId = data?.uid
  const accountId = data?.aid
  if (data === null || typeof userId !== 'string' || typeof accountId !== 'string') return refuse(ctx, 'password.reset')
  const { e, ...kept } = data
  const keep = async () => {
    if (typeof e === 'number') await restoreLink(runtime, 'reset', values.token, values.email, kept, e)
  }
  const password = normalizePassword(field(ctx, 'password', 4 * runtime.provider.maxLength + 4) ?? '')
  const check = await runtime.policy.check(password, { identifier: values.email })
  if (!check.ok) {
    await keep()
    return showResetForm(ctx, runtime, 400, values, check.reasons)
  }
  const hash = await runtime.gate.run(() => runtime.hashing.hash(password))
  if (hash === null) {
    await keep()
    return hashingBusy(ctx)
  }
  // A link asked for before the password last changed (another reset, a change) is void.
  const current = (await runtime.accounts.call((store) => store.listAccounts(userId))).find(
    ({ id }) => id === accountId,
  )
  if (current === undefined || data?.s !== passwordStamp(runtime, current.passwordHash))
    return refuse(ctx, 'password.reset')
  const set = await runtime.accounts.call((store) => store.setPasswordHash!(userId, accountId, hash))
  if (!set) return refuse(ctx, 'password.reset')
  await ctx.svc.sessions.revokeAll(userId)
  const account = (await runtime.accounts.call((store) => store.listAccounts(userId))).find(
    ({ id }) => id === accountId,
  )
  if (account) {
    const key = accountKey(runtime, account.subject)
    await runtime.throttle.reset(key)
    // The mailbox is proved: this browser signs in on its own count while others keep failing.
    rememberDevice(ctx, runtime, key, null)
  }
  ctx.svc.log(
    'info',
    'password.reset',
    'a password was reset; every session of the user ended',
    ctx.svc.userForLog(userId),
  )
  // Every session of the user ended with the reset: the record names none.
  ctx.audit({ event: 'password.reset', userId, provider: runtime.provider.id, handle: null })
  await ctx.emit('passwordReset', ctx.svc.config.events.passwordReset, { userId })
  const callbackUrl = typeof data?.c === 'string' ? data.c : ctx.base.origin
  sendRedirect(ctx.res, ctx.serviceUrl('/password/done', { kind: 'reset', callbackUrl }))
}

async function showResetForm(
  ctx: Context,
  runtime: PasswordRuntime,
  status: number,
  values: { token: string; email: string },
  reasons: readonly string[] | undefined,
): Promise<void> {
  await showPage(ctx, status, 'password-reset', {
    base: ctx.base.href,
    action: ctx.serviceUrl('/password/reset'),
    csrfToken: ctx.csrfToken(),
    ...values,
    callbackUrl: '',
    ...(reasons ? { reasons: reasons as never } : {}),
    minLength: runtime.provider.minLength,
    maxLength: runtime.provider.maxLength,
  })
}
