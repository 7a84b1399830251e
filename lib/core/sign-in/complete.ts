import type { Context } from '../context'
import type { NewSession } from '../session/manager'
import type { SignInEvent, SignInHooks } from '../feature'
import { setCookie } from '../../infra/http/cookies'
import { safeCallbackUrl } from '../../infra/urls/callback-url'
import { askSignIn, type SignInQuestion } from './decide'
import { rebindFlows } from './flow'
import { takeReauth } from './reauth'

export interface SignInInput extends SignInQuestion {
  /** Already validated. */
  callbackUrl: string
  /** The flow that ends here (its cookie is already cleared). */
  flowId?: string
  /** The user id unless the signIn callback chooses one; default `{provider}:{user.id}`. */
  userId?: string
  /**
   * Runs once the signIn callback allowed, before the session is made, with the user id the session
   * gets (a passkey sign-up keeps its passkey here); false refuses the sign-in (CredentialsSignin).
   */
  prepare?: (userId: string) => Promise<boolean>
  /**
   * The provider keeps which user this way in belongs to itself (a stored passkey names its
   * owner): `userId` is that user, and a feature that identifies users takes it as it is.
   */
  userKnown?: true
  /** Who the provider says this is, for a feature that keeps users (accounts); default: `account.providerAccountId` alone. */
  identity?: SignInIdentity
  /**
   * How the user proved who they are, as RFC 8176 methods (a user-verified passkey: `hwk`, `user`,
   * `mfa`; an OpenID provider's ID token `amr`); default by the account's type: `pwd` for a
   * password, `otp` for an e-mail link, none for OAuth.
   */
  amr?: readonly string[]
  /**
   * Seconds since the epoch: when the user proved who they are, when the provider says it was
   * before now (an OpenID provider's `auth_time`: a sign-in it let stand on an older one of its own).
   */
  authTime?: number
}

/** A sign-in's input as a feature may keep it (JSON): no callbacks, no profile. */
export type HeldInput = Omit<SignInInput, 'prepare' | 'profile'>

/**
 * A sign-in the user's first factor completed and a feature holds back (mfa: a second factor is
 * due): everything the session is made of, as JSON. resumeSignIn makes the session from it.
 */
export interface HeldSignIn {
  readonly providerId: string
  readonly userId: string
  readonly user: NewSession['user']
  readonly data?: Record<string, unknown>
  readonly amr: readonly string[]
  readonly input: HeldInput
  /** A step-up's sign-in by the signed-in user: the session goes on under a new token (not a new session). */
  readonly reauth?: true
}

/** What a provider vouches for: its stable subject, and an address when it verified one. */
export interface SignInIdentity {
  /** OIDC: the ID token's `sub`; OAuth: the provider's account id; e-mail: the address. Never an e-mail claim. */
  readonly subject: string
  /** OIDC: the issuer that signed the ID token. */
  readonly issuer?: string
  /** The address the provider verified (OIDC `email_verified: true`, a spent e-mail link); absent otherwise. */
  readonly verifiedEmail?: string
  /** What the user knows this way in by: the address, the provider's account name. */
  readonly label?: string
}

/**
 * The end of every sign-in, whatever the provider: the features' checks (lib/core/feature.ts
 * `SignInHooks`, only those for this provider), the app's signIn callback; then a new session (with
 * what the hooks add to it), a new CSRF token (the other tabs' flows re-bound to it), the signIn
 * event, and the redirect to the callbackUrl.
 */
export async function completeSignIn(ctx: Context, input: SignInInput): Promise<void> {
  const { svc } = ctx
  const { user, account, profile } = input
  const providerId = account.provider
  const hooks = hooksFor(ctx, providerId)
  for (const hook of hooks) {
    const refused = hook.admit?.(input) ?? null
    if (refused !== null) {
      svc.log('warn', 'callback.error', `provider ${providerId}: ${refused}`)
      return ctx.redirectToError('OAuthCallback')
    }
  }
  // Copies: the app's callback cannot change which provider and user the sign-in goes on with.
  const decision = await askSignIn(ctx, { user: { ...user }, account: { ...account }, ...(profile ? { profile } : {}) })
  if (decision.kind === 'deny') return ctx.redirectToError(decision.code)
  if (decision.kind === 'redirect') {
    // The app's callback turned the sign-in away to a page of its own: refused all the same.
    ctx.audit({ event: 'signin', userId: null, provider: providerId, failure: 'AccessDenied' })
    return ctx.redirect(safeCallbackUrl(decision.url, ctx.base, svc.config.redirectOrigins))
  }

  // A step-up's sign-in (./reauth.ts) is the signed-in user's own, or nobody's: known before any
  // feature acts on the identity (accounts would make a user of a new one).
  const expected = takeReauth(ctx)
  if (expected !== null && decision.userId !== undefined && decision.userId !== expected)
    return refuseReauth(ctx, expected)
  let userId = decision.userId ?? input.userId ?? `${providerId}:${user.id}`
  let sessionUser: NewSession['user'] = {
    name: user.name ?? null,
    email: user.email ?? null,
    image: user.image ?? null,
  }
  const identify = hooks.find((hook) => hook.identify !== undefined)?.identify
  if (identify) {
    const identified = await identify({
      ctx,
      providerId,
      input,
      chosen: decision.userId,
      ...(expected === null ? {} : { reauthOf: expected }),
    })
    if (identified.kind === 'refused') return ctx.redirectToError(identified.error)
    userId = identified.userId
    if (identified.user) sessionUser = identified.user
  }
  if (expected !== null && expected !== userId) return refuseReauth(ctx, expected)
  if (input.prepare && !(await input.prepare(userId))) return ctx.redirectToError('CredentialsSignin')
  const { prepare: _prepare, profile: _profile, ...kept } = input
  const held: HeldSignIn = {
    providerId,
    userId,
    user: sessionUser,
    ...(decision.data ? { data: decision.data } : {}),
    amr: methodsOf(input),
    input: kept,
    ...(expected === null ? {} : { reauth: true as const }),
  }
  const event: SignInEvent = { ctx, providerId, userId, input }
  for (const hook of hooks) if (await hook.hold?.(event, held)) return
  await makeSession(ctx, held, input, hooks)
}

/** A step-up's sign-in as another user: refused, and the session stays as it was. */
function refuseReauth(ctx: Context, expected: string): void {
  ctx.svc.log(
    'warn',
    'callback.error',
    'a re-authentication signed in as another user: refused',
    ctx.svc.userForLog(expected),
  )
  ctx.redirectToError('AccessDenied')
}

/**
 * The rest of a held sign-in, once the feature that held it is satisfied: `amr` is what the user
 * proved since (a second factor's methods), added to the first factor's. `reply`: the answer instead
 * of the redirect to the callbackUrl (the recovery codes of a factor enrolled on the way).
 */
export async function resumeSignIn(
  ctx: Context,
  held: HeldSignIn,
  amr: readonly string[],
  reply?: () => Promise<void>,
): Promise<void> {
  const methods = [...new Set([...held.amr, ...amr])]
  await makeSession(ctx, { ...held, amr: methods }, held.input, hooksFor(ctx, held.providerId), reply)
}

/** The session of a sign-in whose user is decided: the features' additions, the record, a new CSRF token, the event, the redirect. */
async function makeSession(
  ctx: Context,
  held: HeldSignIn,
  input: SignInInput,
  hooks: readonly SignInHooks[],
  reply?: () => Promise<void>,
): Promise<void> {
  const { svc } = ctx
  const { providerId, userId } = held
  const event: SignInEvent = { ctx, providerId, userId, input }
  let added = {}
  for (const hook of hooks) added = { ...added, ...(await hook.beforeSession?.(event)) }
  const stored = hooks.filter((hook) => hook.sessionStored !== undefined)
  const newSession: NewSession = {
    userId,
    user: held.user,
    ...(held.data ? { data: held.data } : {}),
    provider: providerId,
    ...(held.amr.length > 0 ? { amr: [...held.amr] } : {}),
    ...(input.authTime === undefined ? {} : { authTime: input.authTime }),
    ...added,
  }
  // The store's id of the new session names it in the audit record (its listSessions handle).
  const kept: { sid: string | null } = { sid: null }
  const whenStored =
    stored.length === 0 && !svc.audit.on
      ? undefined
      : (sid: string | null) => {
          kept.sid = sid
          return everyStored(stored, event, sid)
        }
  // A step-up goes on with the session it proved again (a new token, the same handle).
  const record = held.reauth
    ? await svc.sessions.reauthenticate(ctx.sessionCookie(), newSession, whenStored)
    : await svc.sessions.create(ctx.sessionCookie(), newSession, whenStored)
  if (record === null) {
    // The session ended (its device revoked) or moved (a second submit of this sign-in) meanwhile.
    svc.log('info', 'session.reauth_lost', 'a re-authentication found its session ended or moved meanwhile', {
      ...svc.userForLog(userId),
      provider: providerId,
    })
    return ctx.redirect(input.callbackUrl)
  }
  renewCsrf(ctx, input.flowId)
  const again = held.reauth === true && record.authTime !== undefined
  svc.log('info', again ? 'session.reauthenticated' : 'session.created', again ? 'signed in again' : 'signed in', {
    ...svc.userForLog(record.userId),
    provider: providerId,
  })
  const handle = kept.sid === null ? null : svc.audit.handleOfSid(kept.sid, record)
  ctx.audit({ event: 'signin', userId: record.userId, provider: providerId, handle })
  await ctx.emit('signIn', svc.config.events.signIn, { record })
  // A 302, or `{"url"}` for a client that asked for JSON (the passkey client posts with fetch).
  if (reply) await reply()
  else ctx.redirect(input.callbackUrl)
}

/** The first factor's methods: the provider's word, or its kind's. */
function methodsOf(input: SignInInput): string[] {
  if (input.amr !== undefined) return [...new Set(input.amr)]
  switch (input.account.type) {
    case 'credentials':
      return ['pwd']
    case 'email':
      return ['otp']
    default:
      return []
  }
}

/** The sign-in hooks of the features that see this provider's sign-ins, in the features' order. */
function hooksFor(ctx: Context, providerId: string): SignInHooks[] {
  return ctx.svc.features.flatMap(({ signIn }) => (signIn?.for.has(providerId) ? [signIn] : []))
}

async function everyStored(hooks: readonly SignInHooks[], event: SignInEvent, sid: string | null): Promise<void> {
  for (const hook of hooks) await hook.sessionStored?.(event, sid)
}

/** A CSRF token known before sign-in is not carried into the session. */
function renewCsrf(ctx: Context, completedFlow: string | undefined): void {
  const def = ctx.cookieSet.csrfToken
  const previous = ctx.svc.csrf.read(ctx.cookies[def.name])
  const issued = ctx.svc.csrf.issue()
  setCookie(ctx.res, def, issued.cookieValue)
  if (previous !== null) rebindFlows(ctx.svc.flowKeys, ctx.flowCookies(), previous, issued.token, completedFlow)
}
