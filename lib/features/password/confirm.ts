import type { Context } from '../../core/context'
import { completeSignIn } from '../../core/sign-in/complete'
import { sendRedirect } from '../../infra/http/reply'
import { chooseCallbackUrl } from '../../infra/urls/callback-url'
import { createPasswordUser } from './new-user'
import { normalizeAddress } from '../email/address'
import { hashingBusy } from './answers'
import { restoreLink, spendLink } from './links'
import { normalizePassword } from './policy'
import { showPage } from '../../core/show-page'
import { accountKey, type PasswordRuntime } from './runtime'
import { judgePassword } from './judge'
import { rememberDevice } from './device'
import { clientKey } from '../../infra/http/client-key'

/** The link's values, as strings of a sane length (anything else counts as absent). */
export function linkValues(ctx: Context): { token: string; email: string } {
  const value = (name: string, max: number) => {
    const text = ctx.param(name)
    return text !== null && text.length <= max ? text : ''
  }
  return { token: value('token', 128), email: value('email', 254) }
}

/**
 * `GET /password/confirm`, the sign-up mail's link. Mail scanners open every link, so it spends
 * nothing: the e-mail confirm page, whose button posts the link with a CSRF token (set by this
 * page, so the link works in any browser).
 */
export async function showSignUpLink(ctx: Context, wrongPassword = false): Promise<void> {
  const values = linkValues(ctx)
  if (!values.token || normalizeAddress(values.email) !== values.email) return refuse(ctx, 'user.created', values.token)
  const t = ctx.messages()
  // The password chosen at sign-up, asked again: a link in someone's mailbox creates the account
  // only for whoever chose its password (a sign-up in another's name never becomes theirs).
  const askPassword = {
    label: t.signin.passwordLabel,
    ...(wrongPassword ? { wrongPassword: t.signinAlerts.CredentialsSignin } : {}),
  }
  await showPage(ctx, wrongPassword ? 401 : 200, 'email-confirm', {
    base: ctx.base.href,
    action: ctx.serviceUrl('/password/confirm'),
    ...values,
    callbackUrl: '',
    csrfToken: ctx.csrfToken(),
    askPassword,
  })
}

/**
 * `POST /password/confirm`: the link is spent once; the user and the password account are created
 * together (the address is verified: the mail reached it), and the browser is signed in. An address
 * that got an account since the link was sent (another sign-up, another way in) creates nothing:
 * the browser goes to the sign-in page. Without a valid CSRF token nothing is spent.
 */
export async function confirmSignUp(ctx: Context, runtime: PasswordRuntime): Promise<void> {
  const { svc } = ctx
  const values = linkValues(ctx)
  if (!svc.csrf.verify(ctx.cookies[ctx.cookieSet.csrfToken.name], ctx.body.csrfToken)) {
    svc.log('warn', 'csrf.invalid', 'a sign-up link was posted without a valid CSRF token; it was not spent', {
      route: 'password/confirm',
    })
    return sendRedirect(ctx.res, ctx.serviceUrl('/password/confirm', values))
  }
  const data = values.token && values.email ? await spendLink(runtime, 'signup', values.token, values.email) : null
  const hash = data?.h
  if (data === null || typeof hash !== 'string') return refuse(ctx)
  // Guessing the chosen password with the link in hand is slowed as sign-in guessing is, on a count
  // of this link's own: failed sign-ins for the address never stop its owner confirming.
  const key = accountKey(runtime, `\u0000signup-link\u0000${values.token}`)
  const client = clientKey(ctx.req.ip)
  const typed = typeof ctx.body.password === 'string' ? ctx.body.password : ''
  const pace = await runtime.throttle.attempt(key, client, null)
  const verdict =
    typed.length <= 4 * runtime.provider.maxLength
      ? await judgePassword(runtime, pace === 'allowed' ? hash : null, normalizePassword(typed))
      : { ok: false }
  if (verdict === null && pace === 'allowed') await runtime.throttle.release(key, client, null)
  if (!verdict?.ok) {
    const { e, ...kept } = data
    if (typeof e === 'number') await restoreLink(runtime, 'signup', values.token, values.email, kept, e)
    if (verdict === null) return hashingBusy(ctx)
    svc.log(
      'warn',
      'password.link_refused',
      'a sign-up link was confirmed with another password than the one chosen; kept',
    )
    return showSignUpLink(ctx, true)
  }
  await runtime.throttle.succeeded(key, client, null)
  const identifier = values.email
  const name = typeof data.n === 'string' ? data.n : null
  const callbackUrl = await chooseCallbackUrl(
    typeof data.u === 'string' ? data.u : null,
    ctx.base,
    svc.config.redirectOrigins,
    svc.config.callbacks.redirect,
    svc.log,
  )
  const created = await createPasswordUser(runtime, svc, { identifier, name, email: identifier, hash })
  if (created.kind !== 'created') {
    svc.log(
      'info',
      'password.link_refused',
      `a sign-up link found the address taken since (${created.kind}); nothing was created`,
    )
    return ctx.redirect(ctx.serviceUrl('/signin', { callbackUrl }))
  }
  // The mailbox is proved: this browser is a known device of the new account.
  rememberDevice(ctx, runtime, accountKey(runtime, identifier), null)
  await completeSignIn(ctx, {
    user: { id: identifier, name, email: identifier, image: null },
    account: { provider: runtime.provider.id, type: 'credentials', providerAccountId: identifier },
    identity: { subject: identifier, verifiedEmail: identifier, label: identifier },
    callbackUrl,
  })
}

/**
 * `token`: the link's token, when one was presented: only then is the refusal a record of the audit
 * stream (a page fetched without a link, by a crawler or another site's <img>, is no refused link).
 */
export function refuse(
  ctx: Context,
  event: 'user.created' | 'password.reset' = 'user.created',
  token: unknown = true,
): void {
  ctx.svc.log(
    'warn',
    'password.link_refused',
    'a password link was refused: unknown, expired, already used, or for another address',
  )
  // Whose link it was is not known (nor told): the record names nobody.
  if (token) ctx.audit({ event, userId: null, failure: 'Verification' })
  ctx.redirectToError('Verification')
}
