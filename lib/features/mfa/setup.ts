import type { Context } from '../../core/context'
import { field, showPage } from '../../core/show-page'
import { resumeSignIn } from '../../core/sign-in/complete'
import { randomToken } from '../../infra/crypto/random'
import { newRecoveryCodes } from '../../infra/crypto/recovery-codes'
import { newTotpSecret, totpUri } from '../../infra/crypto/totp'
import { sendJson } from '../../infra/http/reply'
import { qrSvg } from '../../infra/pages/qr-svg'
import type { StoredFactor } from '../accounts/store'
import { factorInfo, hashCodes, openSecret, sealSecret, secretOwner, spendTotp } from './factor-store'
import { endPending } from './pending'
import type { MfaRuntime } from './runtime'
import { enroller, enrolmentOwner, type Enroller } from './who'

/** Seconds an app being set up waits for its first code; and how many may wait for one user at once. */
const WAITING_SECONDS = 15 * 60
const MAX_WAITING = 5

/**
 * TOTP enrolment: `POST /mfa/totp/setup` answers `{ uri, secret }` and `GET /mfa/setup` shows the
 * same as a QR code (SVG made here, no script) with the secret for typing in; the factor waits,
 * disabled, for `POST /mfa/totp/confirm` with the app's first code, which enables it and answers
 * the recovery codes, once. A new setup replaces a factor still waiting.
 */
export async function totpSetup(ctx: Context, runtime: MfaRuntime): Promise<void> {
  if (runtime.totp === null) return ctx.redirectToError('Default', 404)
  const who = await enroller(ctx, runtime, 'setting up an authenticator app')
  if (who === null) return
  const { uri, secret } = await waitingFactor(ctx, runtime, who, true)
  sendJson(ctx.res, 200, JSON.stringify({ uri, secret }))
}

export async function setupPage(ctx: Context, runtime: MfaRuntime, error?: 'wrong'): Promise<void> {
  if (runtime.totp === null) return ctx.redirectToError('Default', 404)
  const who = await enroller(ctx, runtime, 'setting up an authenticator app')
  if (who === null) return
  // A reload, or a wrong first code, shows the secret the app may have scanned already.
  const { uri, secret } = await waitingFactor(ctx, runtime, who, false)
  await showPage(ctx, error ? 400 : 200, 'mfa-setup', {
    base: ctx.base.href,
    action: ctx.serviceUrl('/mfa/totp/confirm'),
    csrfToken: ctx.csrfToken(),
    callbackUrl: await callbackOf(ctx, who),
    // Our own URI, a few hundred characters: drawn always (an empty box if the encoder ever refused).
    qrSvg: qrSvg(uri) ?? '',
    secret,
    ...(error ? { error } : {}),
  })
}

/** `POST /mfa/totp/confirm` (CSRF checked): `code`, the app's first. */
export async function totpConfirm(ctx: Context, runtime: MfaRuntime): Promise<void> {
  if (runtime.totp === null) return ctx.redirectToError('Default', 404)
  const who = await enroller(ctx, runtime, 'setting up an authenticator app')
  if (who === null) return
  const all = await runtime.accounts.call((store) => store.listFactors!(who.userId))
  // Only the app this session (or pending sign-in) set up: another's is not theirs to confirm.
  const owner = enrolmentOwner(ctx, who)
  const waiting = all.filter((factor) => isWaiting(factor) && secretOwner(runtime, factor.secret) === owner)
  const factor = await spendTotp(runtime, who.userId, waiting, field(ctx, 'code', 64) ?? '')
  if (factor === null || !(await runtime.accounts.call((store) => store.enableFactor!(who.userId, factor.id)))) {
    if (ctx.jsonMode) return sendJson(ctx.res, 400, JSON.stringify({ error: 'InvalidCode' }))
    return setupPage(ctx, runtime, 'wrong')
  }
  await added(ctx, runtime, who.userId, { ...factor, enabled: true })
  // Whatever else was being set up for this user (another session's) is void now.
  for (const other of all.filter((candidate) => isWaiting(candidate) && candidate.id !== factor.id))
    await runtime.accounts.call((store) => store.removeFactor!(who.userId, other.id))
  const hasCodes = all.some(({ type, enabled }) => type === 'recovery' && enabled)
  const recoveryCodes = runtime.recovery !== null && !hasCodes ? await replaceCodes(ctx, runtime, who.userId) : []
  const answer = async () => showCodes(ctx, recoveryCodes, await callbackOf(ctx, who))
  if (who.kind === 'session') return answer()
  // Enrolled on the way in (`require: 'always'`): the first code was the second factor, and the
  // pending sign-in is spent, as /mfa/verify spends it (a copy of its cookie makes nothing more).
  if ((await runtime.spent.consume(who.pending.id)) !== null) return ctx.redirectToError('AccessDenied')
  endPending(ctx)
  await resumeSignIn(ctx, who.pending.held, ['otp', 'mfa'], answer)
}

/** `POST /mfa/recovery-codes` (CSRF checked): a new set; the old codes stop working. */
export async function newCodes(ctx: Context, runtime: MfaRuntime): Promise<void> {
  if (runtime.recovery === null) return ctx.redirectToError('Default', 404)
  const who = await enroller(ctx, runtime, 'making new recovery codes')
  if (who === null) return
  if (who.kind !== 'session' || !who.factors.some(({ type }) => type !== 'recovery'))
    return ctx.redirectToError('Default', 404)
  await showCodes(ctx, await replaceCodes(ctx, runtime, who.userId), await ctx.callbackTarget())
}

/** The recovery codes, shown once: `{ recoveryCodes }`, or the page. */
async function showCodes(ctx: Context, codes: readonly string[], continueUrl: string): Promise<void> {
  if (ctx.jsonMode || ctx.req.headers.accept?.includes('application/json'))
    return sendJson(ctx.res, 200, JSON.stringify({ recoveryCodes: codes }))
  await showPage(ctx, 200, 'mfa-codes', { base: ctx.base.href, codes: [...codes], continueUrl })
}

/** A new set of recovery codes for the user, replacing theirs (or a first set). */
async function replaceCodes(ctx: Context, runtime: MfaRuntime, userId: string): Promise<string[]> {
  const codes = newRecoveryCodes(runtime.recovery!.count)
  const hashes = hashCodes(runtime, codes)
  const current = (await runtime.accounts.call((store) => store.listFactors!(userId))).find(
    ({ type }) => type === 'recovery',
  )
  if (current && (await runtime.accounts.call((store) => store.replaceRecoveryCodes!(userId, current.id, hashes))))
    return codes
  const factor: StoredFactor = {
    id: randomToken(16),
    userId,
    type: 'recovery',
    label: null,
    secret: '',
    enabled: true,
    createdAt: new Date(),
    lastUsedAt: null,
    codesLeft: codes.length,
  }
  await runtime.accounts.call((store) => store.addFactor!(factor, hashes))
  await added(ctx, runtime, userId, factor)
  return codes
}

/**
 * The secret of this session's (or pending sign-in's) app waiting for its first code: the one
 * waiting, or a new one (`fresh`, or none of theirs waits), which replaces theirs.
 */
async function waitingFactor(ctx: Context, runtime: MfaRuntime, who: Enroller, fresh: boolean) {
  const owner = enrolmentOwner(ctx, who)
  const waiting = await waitingFactors(runtime, who.userId)
  const mine = fresh ? undefined : waiting.find(({ secret }) => secretOwner(runtime, secret) === owner)
  let secret = mine === undefined ? null : openSecret(runtime, mine.secret)
  if (secret === null) {
    // This owner's earlier one goes, and any set up too long ago or beyond the newest few: another
    // session's app, still being set up, is left alone (it is theirs to confirm).
    const stale = Date.now() - WAITING_SECONDS * 1000
    const keep = waiting
      .filter(({ secret: sealed, createdAt }) => secretOwner(runtime, sealed) !== owner && createdAt.getTime() > stale)
      .slice(-(MAX_WAITING - 1))
    for (const old of waiting.filter((factor) => !keep.includes(factor)))
      await runtime.accounts.call((store) => store.removeFactor!(who.userId, old.id))
    secret = newTotpSecret()
    const sealed = sealSecret(runtime, secret, owner)
    await runtime.accounts.call((store) =>
      store.addFactor!({
        id: randomToken(16),
        userId: who.userId,
        type: 'totp',
        label: null,
        secret: sealed,
        enabled: false,
        createdAt: new Date(),
        lastUsedAt: null,
        codesLeft: 0,
      }),
    )
  }
  const user = await runtime.accounts.call((store) => store.getUser(who.userId))
  const account = user?.email ?? who.userId
  const issuer = runtime.totp?.issuer ?? new URL(ctx.base.origin).hostname
  return { uri: totpUri({ secret, issuer, account }), secret }
}

async function waitingFactors(runtime: MfaRuntime, userId: string): Promise<StoredFactor[]> {
  return (await runtime.accounts.call((store) => store.listFactors!(userId))).filter(isWaiting)
}

/** An app set up, waiting for its first code. */
const isWaiting = ({ type, enabled }: StoredFactor) => type === 'totp' && !enabled

async function added(ctx: Context, runtime: MfaRuntime, userId: string, factor: StoredFactor): Promise<void> {
  ctx.svc.log('info', 'mfa.enrolled', `a second factor (${factor.type}) was enrolled`, ctx.svc.userForLog(userId))
  ctx.audit({ event: 'factor.added', userId, provider: null })
  await ctx.emit('factorAdded', ctx.svc.config.events.factorAdded, { userId, factor: factorInfo(factor) })
}

async function callbackOf(ctx: Context, who: Enroller): Promise<string> {
  return who.kind === 'pending' ? who.pending.held.input.callbackUrl : ctx.callbackTarget()
}
