import { assured } from '../../core/assurance'
import type { Context } from '../../core/context'
import type { WayInChange } from '../../core/feature'
import type { SessionRecord } from '../../infra/config/types'
import { sendRedirect } from '../../infra/http/reply'
import { clientKey } from '../../infra/http/client-key'
import { accountInfo } from '../accounts/runtime'
import { signInFirst as signInAgain } from '../accounts/routes'
import { passwordAccount } from './new-user'
import type { StoredAccount, User } from '../accounts/store'
import { emailIdentifier } from '../email/address'
import { hashingBusy } from './answers'
import { knownDevice } from './device'
import { readIdentifier } from './identifier'
import { judgePassword } from './judge'
import { field, showPage } from '../../core/show-page'
import { normalizePassword } from './policy'
import { accountKey, type PasswordRuntime } from './runtime'

/** The signed-in user, their password account (null: none yet), and whether they signed in recently. */
interface Who {
  readonly record: SessionRecord
  readonly user: User
  readonly account: StoredAccount | null
  readonly recent: boolean
  /** The session proved as many factors as the user's changes need. */
  readonly assured: boolean
}

async function who(ctx: Context, runtime: PasswordRuntime): Promise<Who | null> {
  const record = await ctx.svc.sessions.read(ctx.sessionCookie())
  if (record === null) return null
  const user = await runtime.accounts.call((store) => store.getUser(record.userId))
  if (user === null) return null
  const accounts = await runtime.accounts.call((store) => store.listAccounts(record.userId))
  const account = accounts.find(({ provider }) => provider === runtime.provider.id) ?? null
  const recent = Date.now() / 1000 - (record.authTime ?? record.createdAt) <= runtime.accounts.linkMaxAge
  // With a second factor enrolled, a session made with the first alone changes nothing (lib/core/assurance.ts).
  if (!(await assured(ctx, record))) return { record, user, account, recent, assured: false }
  return { record, user, account, recent, assured: true }
}

/** No session, or (`me` given) one too old to add a password: the sign-in page, back to this form afterwards. */
async function signInFirst(ctx: Context, runtime: PasswordRuntime, me: Who | null): Promise<void> {
  const back = ctx.serviceUrl('/password/change', { callbackUrl: await ctx.callbackTarget() })
  return signInAgain(ctx, me?.record ?? null, runtime.accounts, 'adding a password', back)
}

/** `GET /password/change`: the form, for a signed-in user. */
export async function changePage(ctx: Context, runtime: PasswordRuntime): Promise<void> {
  const me = await who(ctx, runtime)
  if (me === null) return signInFirst(ctx, runtime, null)
  if (!me.assured || (me.account === null && !me.recent)) return signInFirst(ctx, runtime, me)
  await showForm(ctx, runtime, me, 200, {})
}

/**
 * `POST /password/change` (CSRF checked, signed in): with `currentPassword` (checked, and throttled
 * as a sign-in is), or without it only within `accounts.linkMaxAge` of signing in, the password
 * becomes `newPassword` (the policy's every rule). A user without a password (signed in another
 * way) adds one, after a recent sign-in only: their verified address (or a user name they choose)
 * becomes a new way in. The user's other sessions end; this one stays. `passwordChanged` runs.
 */
export async function change(ctx: Context, runtime: PasswordRuntime): Promise<void> {
  const me = await who(ctx, runtime)
  if (me === null) return signInFirst(ctx, runtime, null)
  if (!me.assured) return signInFirst(ctx, runtime, me)
  const limit = 4 * runtime.provider.maxLength + 4
  const current = field(ctx, 'currentPassword', limit) ?? ''
  const password = normalizePassword(field(ctx, 'newPassword', limit) ?? '')
  if (me.account === null) return add(ctx, runtime, me, password)
  // The current password always (OWASP ASVS 2.1.6): a session cookie copied right after sign-in
  // must not change it. Only a first password (below) rests on a recent sign-in alone.
  const judged = current === '' ? 'wrong' : await currentMatches(ctx, runtime, me.account, normalizePassword(current))
  if (judged === 'busy') return hashingBusy(ctx)
  if (judged === 'wrong') {
    const provider = runtime.provider.id
    ctx.audit({ event: 'password.changed', userId: me.user.id, provider, failure: 'CredentialsSignin' }, me.record)
    return showForm(ctx, runtime, me, 400, { wrongCurrent: true })
  }
  const check = await runtime.policy.check(password, { identifier: me.account.subject })
  if (!check.ok) return showForm(ctx, runtime, me, 400, { reasons: check.reasons })
  const hash = await runtime.gate.run(() => runtime.hashing.hash(password))
  if (hash === null) return hashingBusy(ctx)
  const { account } = me
  if (!(await runtime.accounts.call((store) => store.setPasswordHash!(me.user.id, account.id, hash))))
    return ctx.redirectToError('Default', 404)
  await changed(ctx, runtime, me, false)
}

/** The user's first password: a new way in, linked to them. */
async function add(ctx: Context, runtime: PasswordRuntime, me: Who, password: string): Promise<void> {
  if (!me.recent) return signInFirst(ctx, runtime, me)
  const identifier =
    runtime.provider.identifier === 'email'
      ? me.user.emailVerified
        ? emailIdentifier(me.user.email, runtime.mail?.provider.normalizeIdentifier)
        : null
      : readIdentifier(runtime, ctx.body.username)
  if (identifier === null) return showForm(ctx, runtime, me, 400, { invalidIdentifier: true })
  const check = await runtime.policy.check(password, { identifier })
  if (!check.ok) return showForm(ctx, runtime, me, 400, { reasons: check.reasons })
  const hash = await runtime.gate.run(() => runtime.hashing.hash(password))
  if (hash === null) return hashingBusy(ctx)
  const account = passwordAccount(runtime, me.user.id, identifier, hash, null)
  const linked = await runtime.accounts.call((store) => store.linkAccount(account))
  if (linked.kind === 'identityTaken') return showForm(ctx, runtime, me, 409, { taken: true })
  if (linked.kind === 'noUser') return ctx.redirectToError('AccessDenied')
  ctx.svc.log('info', 'account.linked', 'a way in was linked (a password added)', {
    provider: runtime.provider.id,
    ...ctx.svc.userForLog(me.user.id),
  })
  ctx.audit({ event: 'account.linked', userId: me.user.id, provider: runtime.provider.id }, me.record)
  await runtime.accounts.emit('accountLinked', { userId: me.user.id, account: accountInfo(linked.account) })
  await changed(ctx, runtime, me, true)
}

/**
 * accounts' `POST /unlink` of the password itself asks for it (`currentPassword`): a copied
 * session cookie could otherwise unlink the password and add one of its own (adding a first
 * password needs only a recent sign-in). Wrong or missing: AccessDenied (403), nothing unlinked.
 */
export async function guardUnlink(
  ctx: Context,
  runtime: PasswordRuntime,
  record: SessionRecord,
  change: WayInChange,
): Promise<boolean> {
  if (change.way.type !== 'credentials' || change.way.provider !== runtime.provider.id) return true
  const account = (await runtime.accounts.call((store) => store.listAccounts(record.userId))).find(
    ({ id }) => id === change.way.id,
  )
  if (account === undefined) return true
  const current = field(ctx, 'currentPassword', 4 * runtime.provider.maxLength + 4) ?? ''
  const judged = current === '' ? 'wrong' : await currentMatches(ctx, runtime, account, normalizePassword(current))
  if (judged === 'busy') return hashingBusy(ctx)
  if (judged === 'right') return true
  ctx.svc.log(
    'warn',
    'password.unlink_refused',
    'unlinking a password was refused: the current password was wrong or missing',
    ctx.svc.userForLog(record.userId),
  )
  ctx.audit(
    { event: 'account.unlinked', userId: record.userId, provider: runtime.provider.id, failure: 'AccessDenied' },
    record,
  )
  ctx.redirectToError('AccessDenied', 403)
  return false
}

/** The current password, judged as a sign-in judges it: throttled, counted, held to the refusal floor. */
async function currentMatches(
  ctx: Context,
  runtime: PasswordRuntime,
  account: StoredAccount,
  current: string,
): Promise<'right' | 'wrong' | 'busy'> {
  const key = accountKey(runtime, account.subject)
  const client = clientKey(ctx.req.ip)
  // The owner's known device keeps its own count: failures from elsewhere never stop a change here.
  const device = knownDevice(ctx, runtime, key)
  const pace = await runtime.throttle.attempt(key, client, device)
  const verdict = await judgePassword(runtime, pace === 'allowed' ? (account.passwordHash ?? null) : null, current)
  if (verdict === null) {
    if (pace === 'allowed') await runtime.throttle.release(key, client, device)
    return 'busy'
  }
  if (!verdict.ok) return 'wrong'
  await runtime.throttle.succeeded(key, client, device)
  return 'right'
}

async function changed(ctx: Context, runtime: PasswordRuntime, me: Who, added: boolean): Promise<void> {
  await ctx.svc.sessions.revokeOthers(ctx.sessionCookie(), me.record)
  ctx.svc.log(
    'info',
    'password.changed',
    added ? 'a password was added' : 'a password was changed; the other sessions ended',
    ctx.svc.userForLog(me.user.id),
  )
  ctx.audit({ event: 'password.changed', userId: me.user.id, provider: runtime.provider.id }, me.record)
  await ctx.emit('passwordChanged', ctx.svc.config.events.passwordChanged, { userId: me.user.id, added })
  const kind = added ? 'added' : 'changed'
  sendRedirect(ctx.res, ctx.serviceUrl('/password/done', { kind, callbackUrl: await ctx.callbackTarget() }))
}

interface FormState {
  reasons?: readonly string[]
  wrongCurrent?: boolean
  invalidIdentifier?: boolean
  taken?: boolean
}

async function showForm(
  ctx: Context,
  runtime: PasswordRuntime,
  me: Who,
  status: number,
  state: FormState,
): Promise<void> {
  await showPage(ctx, status, 'password-change', {
    base: ctx.base.href,
    action: ctx.serviceUrl('/password/change'),
    csrfToken: ctx.csrfToken(),
    callbackUrl: await ctx.callbackTarget(),
    needsCurrent: me.account !== null,
    adding: me.account === null,
    askUsername: me.account === null && runtime.provider.identifier === 'username',
    ...(state.reasons ? { reasons: state.reasons as never } : {}),
    ...(state.wrongCurrent ? { wrongCurrent: true } : {}),
    ...(state.invalidIdentifier ? { invalidIdentifier: true } : {}),
    ...(state.taken ? { taken: true } : {}),
    minLength: runtime.provider.minLength,
    maxLength: runtime.provider.maxLength,
  })
}
