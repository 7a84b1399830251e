import type { Context } from '../../core/context'
import { completeSignIn } from '../../core/sign-in/complete'
import { clientKey } from '../../infra/http/client-key'
import type { StoredAccount } from '../accounts/store'
import { credentialsRefused, hashingBusy } from './answers'
import { knownDevice, rememberDevice } from './device'
import { identifierField, readIdentifier } from './identifier'
import { judgePassword } from './judge'
import { codePoints, normalizePassword } from './policy'
import { accountKey, type PasswordRuntime } from './runtime'

/**
 * `POST /callback/credentials` (CSRF checked by the router): NextAuth's credentials sign-in. An
 * unknown identifier, a wrong password and an account that is slowed down (too many failures) get
 * the one answer, CredentialsSignin, after the same work: the account is looked up, and exactly one
 * verification runs (against the stored hash, or a dummy one at the current parameters), a refusal
 * no sooner than an imported hash's verification (./refusal-floor.ts). The attempt is counted by the
 * throttle before it is judged, and taken back when right. A
 * password longer than the policy allows is refused before any hashing. Past the hashing limit: 429.
 */
export async function passwordSignIn(ctx: Context, runtime: PasswordRuntime): Promise<void> {
  const raw = ctx.body.password
  const password = typeof raw === 'string' && raw.length <= 4 * runtime.provider.maxLength ? normalizePassword(raw) : ''
  const identifier = readIdentifier(runtime, ctx.body[identifierField(runtime)])
  if (password === '' || codePoints(password) > runtime.provider.maxLength || identifier === null) {
    ctx.svc.log(
      'info',
      'password.signin_failed',
      'a password sign-in was refused: no identifier or password of a possible shape',
    )
    return credentialsRefused(ctx, runtime, null)
  }
  const key = accountKey(runtime, identifier)
  const client = clientKey(ctx.req.ip)
  const device = knownDevice(ctx, runtime, key)
  const identity = { provider: runtime.provider.id, issuer: '', subject: identifier }
  const [pace, account] = await Promise.all([
    runtime.throttle.attempt(key, client, device),
    runtime.accounts.call((store) => store.findAccount(identity)),
  ])
  const verdict = await judgePassword(runtime, pace === 'allowed' ? (account?.passwordHash ?? null) : null, password)
  if (verdict === null) {
    if (pace === 'allowed') await runtime.throttle.release(key, client, device)
    return hashingBusy(ctx)
  }
  if (!verdict.ok || account === null) {
    ctx.svc.log('info', 'password.signin_failed', 'a password sign-in was refused', {
      accountHash: key,
      reason: pace === 'slowed' ? 'slowed' : account === null ? 'unknown' : 'mismatch',
    })
    return credentialsRefused(ctx, runtime, account?.userId ?? null)
  }
  await runtime.throttle.succeeded(key, client, device)
  rememberDevice(ctx, runtime, key, device)
  if (verdict.rehash) await rehash(ctx, runtime, account, password)
  await completeSignIn(ctx, {
    user: {
      id: identifier,
      name: null,
      email: runtime.provider.identifier === 'email' ? identifier : null,
      image: null,
    },
    account: { provider: runtime.provider.id, type: 'credentials', providerAccountId: identifier },
    identity: { subject: identifier, label: identifier },
    callbackUrl: await ctx.callbackTarget(),
  })
}

/**
 * The stored hash is of older parameters or another algorithm (an imported bcrypt hash): the
 * password, known right now, is hashed again at the current ones. Skipped when hashing is busy (the
 * next sign-in does it); a store failure is logged, never a failed sign-in.
 */
async function rehash(ctx: Context, runtime: PasswordRuntime, account: StoredAccount, password: string): Promise<void> {
  const fresh = await runtime.gate.run(() => runtime.hashing.hash(password))
  if (fresh === null) return
  try {
    await runtime.accounts.call((store) => store.setPasswordHash!(account.userId, account.id, fresh))
    ctx.svc.log(
      'info',
      'password.rehashed',
      `a password was hashed again with ${runtime.hashing.algorithm} at the current parameters`,
      ctx.svc.userForLog(account.userId),
    )
  } catch {
    // Answered 503 elsewhere; here the sign-in goes on with the old hash kept.
  }
}
