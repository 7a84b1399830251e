import type { Context } from '../../core/context'
import type { IdentifyEvent, Identified, SignInEvent } from '../../core/feature'
import type { SignInInput } from '../../core/sign-in/complete'
import { AuthError, type AuthErrorCode } from '../../infra/errors'
import { keepable, verifiedAddress, withoutNul } from './identity-text'
import { asksFor, clearLinkState, CONFIRM_SECONDS, readLinkState, writeLinkState, type LinkState } from './link-cookie'
import { accountInfo, randomId, type AccountsRuntime } from './runtime'
import type { IdentityKey, StoredAccount, User } from './store'

/**
 * Which user a sign-in is (the `identify` sign-in hook, lib/core/feature.ts), once the app's signIn
 * callback allowed it. The rules, and why (docs/accounts.md):
 * - a passkey names its owner; any other identity is looked up by (provider, issuer, subject),
 *   never by an e-mail claim;
 * - a link the signed-in user asked for (`link=true`) links the identity to that user, unless it is
 *   another user's (`AccountAlreadyLinked`: never a merge);
 * - a new identity whose provider verified an address that belongs to a user makes no session
 *   (`OAuthAccountNotLinked`): it waits in a sealed cookie until that user signs in here with a way
 *   in they already have (the confirm path), unless its provider is in `dangerouslyLinkByEmail`;
 * - any other new identity creates a user (unless `signUp: false`), once, whatever races;
 * - a step-up's sign-in (`reauthOf`) is a way in that user already has, or refused: it never
 *   links, adopts or creates.
 */
export function identifyUser(runtime: AccountsRuntime): (event: IdentifyEvent) => Promise<Identified> {
  return async ({ ctx, providerId, input, chosen, reauthOf }) => {
    const pending = readLinkState(ctx, runtime.keys)
    if (pending !== null) clearLinkState(ctx)
    const steps = new Steps(runtime, ctx, providerId, input)
    if (reauthOf !== undefined) return steps.again(reauthOf, identityKey(providerId, input))
    // A passkey's own store says whose it is: the sign-in's proof is the passkey itself.
    if (input.userKnown && input.userId !== undefined) {
      if (chosen !== undefined && chosen !== input.userId)
        return steps.refuse('AccessDenied', "the signIn callback chose another user than the passkey's owner")
      return steps.signedIn(await steps.owner(input.userId), pending)
    }
    const key = identityKey(providerId, input)
    if (key !== null && !(keepable(key.subject) && keepable(key.issuer)))
      return steps.refuse('AccessDenied', 'an identity no store keeps as it is (a NUL, ill-formed text, or too long)')
    if (pending?.kind === 'link' && pending.provider === providerId && asksFor(pending, key, input.account.type)) {
      const linked = await steps.linkAsked(pending.userId, key)
      if (linked !== null) return linked
    }
    if (chosen !== undefined) return steps.adopt(chosen, key, pending)
    // A passkey sign-up: the passkey store keeps the way in (the input's `prepare`), not ours.
    const known = key === null ? null : await runtime.call((store) => store.findAccount(key))
    if (known !== null) return steps.known(known, pending)
    const verified = verifiedAddress(input)
    if (key !== null && verified !== undefined) {
      const owner = await runtime.call((store) => store.findUserByVerifiedEmail(verified))
      // A concurrent first sign-in of this very identity may have made that user since findAccount
      // (its user and account are written together): then this is its user, not a confirm path.
      const since = owner && (await runtime.call((store) => store.findAccount(key)))
      if (since) return steps.known(since, pending)
      if (owner !== null) return steps.sameAddress(owner, key)
    }
    if (!runtime.signUp) return steps.refuse('AccessDenied', 'a new identity, and accounts.signUp is false')
    return steps.signUp(key, verified)
  }
}

/**
 * Once the new session is stored: its user must still be there. A deleteUser() between this
 * sign-in's reading of its user and the session's writing would otherwise leave a session of a
 * deleted user (deleteUser ends the sessions again once the user is gone, which ends any session
 * stored before this check). Throwing removes the session again, and the sign-in fails.
 */
export function userStillThere(runtime: AccountsRuntime): (event: SignInEvent) => Promise<void> {
  return async ({ userId }) => {
    if ((await runtime.call((store) => store.getUser(userId))) === null)
      throw new AuthError('AccessDenied', 'the user was deleted while signing in')
  }
}

/** The identity a sign-in names; null for a passkey sign-up (its passkey is its way in). */
function identityKey(providerId: string, input: SignInInput): IdentityKey | null {
  if (input.account.type === 'webauthn') return null
  const identity = input.identity
  const subject = identity?.subject ?? input.account.providerAccountId
  // An address is one identity however it is spelled.
  return {
    provider: providerId,
    issuer: identity?.issuer ?? '',
    subject: input.account.type === 'email' ? subject.toLowerCase() : subject,
  }
}

/** The steps of one sign-in's identification, sharing its request and input. */
class Steps {
  constructor(
    private readonly runtime: AccountsRuntime,
    private readonly ctx: Context,
    private readonly providerId: string,
    private readonly input: SignInInput,
  ) {}

  /** A refusal, logged with the reason (no address, no subject). */
  refuse(error: AuthErrorCode, why: string, userId?: string): Identified {
    this.ctx.svc.log('warn', 'account.refused', `a sign-in was refused: ${why}`, {
      provider: this.providerId,
      ...(userId === undefined ? {} : this.ctx.svc.userForLog(userId)),
    })
    return { kind: 'refused', error }
  }

  /**
   * The user signs in; a confirm path waiting for this very user (the cookie) links its identity
   * now. A user who no longer exists (deleted meanwhile) is refused.
   */
  async signedIn(user: User | null, pending: LinkState | null): Promise<Identified> {
    if (user === null) return this.refuse('AccessDenied', 'its user no longer exists')
    if (pending?.kind === 'confirm' && pending.userId === user.id) {
      const linked = await this.link(user.id, pending.identity, 'confirmed')
      if (linked !== null) return linked
    }
    return { kind: 'user', userId: user.id, user: { name: user.name, email: user.email, image: user.image } }
  }

  /**
   * A passkey's owner. A passkey added before the app had accounts names a user id no store knows
   * (`oidc:alice`): the passkey proves it, so that user is made with that id, as an adopted one.
   */
  async owner(userId: string): Promise<User | null> {
    const user = await this.runtime.call((store) => store.getUser(userId))
    if (user !== null) return user
    const created = await this.runtime.call((store) => store.createUser(this.newUser(userId, undefined), null))
    if (created.kind === 'created') await this.created(created.user)
    return this.runtime.call((store) => store.getUser(userId))
  }

  /** A step-up's sign-in: a way in `userId` has (a passkey of theirs, a linked identity), else refused. */
  async again(userId: string, key: IdentityKey | null): Promise<Identified> {
    const refuse = () =>
      this.refuse('AccessDenied', 'a re-authentication with a way in the signed-in user does not have', userId)
    if (this.input.userKnown) {
      if (this.input.userId !== userId) return refuse()
      return this.signedIn(await this.runtime.call((store) => store.getUser(userId)), null)
    }
    const known = key === null ? null : await this.runtime.call((store) => store.findAccount(key))
    return known?.userId === userId ? this.known(known, null) : refuse()
  }

  /** A known identity: its user, the account's use recorded. */
  async known(account: StoredAccount, pending: LinkState | null): Promise<Identified> {
    await this.runtime.call((store) => store.touchAccount(account.userId, account.id, new Date()))
    return this.signedIn(await this.runtime.call((store) => store.getUser(account.userId)), pending)
  }

  /**
   * `link=true` from `userId`: linked to the session's user, when the session is still that user's.
   * Null when it is not (signed out, another user): the sign-in then goes on as any other.
   */
  async linkAsked(userId: string, key: IdentityKey | null): Promise<Identified | null> {
    if (key === null) return null
    const record = await this.ctx.svc.sessions.read(this.ctx.sessionCookie())
    if (record?.userId !== userId) return null
    const user = await this.runtime.call((store) => store.getUser(userId))
    if (user === null) return this.refuse('AccessDenied', 'the user who asked to link no longer exists')
    const refused = await this.link(userId, { ...key, type: this.type(), label: this.label() }, 'asked')
    return refused ?? this.signedIn(user, null)
  }

  /**
   * The app's signIn callback answered `{ userId }`: that user (created with that id when there is
   * none, which is how an app that mapped users in its callback moves to accounts), with this
   * identity linked to it; an identity of another user is refused, never moved.
   */
  async adopt(chosen: string, key: IdentityKey | null, pending: LinkState | null): Promise<Identified> {
    let user = await this.runtime.call((store) => store.getUser(chosen))
    if (user === null) {
      const fresh = this.newUser(chosen, verifiedAddress(this.input))
      const account = key && this.account(chosen, key)
      let created = await this.runtime.call((store) => store.createUser(fresh, account))
      // A verified address another user has: the new user keeps no address rather than take it.
      if (created.kind === 'emailTaken') {
        const bare = { ...fresh, email: null, emailVerified: null }
        created = await this.runtime.call((store) => store.createUser(bare, account))
      }
      if (created.kind === 'created') await this.created(created.user)
      if (created.kind === 'identityTaken' && created.account.userId !== chosen)
        return this.refuse('AccountAlreadyLinked', "the signIn callback chose another user than the identity's", chosen)
      user = await this.runtime.call((store) => store.getUser(chosen))
      // Made meanwhile by a concurrent sign-in with this id: the identity is linked to it as to any user.
      if (created.kind === 'userExists' && key !== null) {
        const refused = await this.link(chosen, { ...key, type: this.type(), label: this.label() }, 'adopted')
        if (refused !== null) return refused
      }
    } else if (key !== null) {
      const refused = await this.link(chosen, { ...key, type: this.type(), label: this.label() }, 'adopted')
      if (refused !== null) return refused
    }
    return this.signedIn(user, pending)
  }

  /**
   * A new identity whose verified address is `owner`'s: linked at once only when its provider is in
   * `dangerouslyLinkByEmail`; otherwise no session, and the identity waits for `owner` to sign in.
   */
  async sameAddress(owner: User, key: IdentityKey): Promise<Identified> {
    const identity = { ...key, type: this.type(), label: this.label() }
    if (this.runtime.linkByEmail.has(this.providerId)) {
      const refused = await this.link(owner.id, identity, 'by address')
      return refused ?? this.signedIn(owner, null)
    }
    const exp = Math.floor(Date.now() / 1000) + CONFIRM_SECONDS
    writeLinkState(this.ctx, this.runtime.keys, { kind: 'confirm', userId: owner.id, identity, exp })
    this.ctx.svc.log(
      'info',
      'account.pending',
      "a new identity's verified address belongs to a user: it waits for that user to sign in",
      { provider: this.providerId, ...this.ctx.svc.userForLog(owner.id) },
    )
    return { kind: 'refused', error: 'OAuthAccountNotLinked' }
  }

  /** A new user with this identity; a concurrent sign-up of the same identity wins, and this one signs in as its user. */
  async signUp(key: IdentityKey | null, verified: string | undefined): Promise<Identified> {
    const user = this.newUser(randomId(), verified)
    const result = await this.runtime.call((store) => store.createUser(user, key && this.account(user.id, key)))
    switch (result.kind) {
      case 'created':
        await this.created(result.user)
        return this.signedIn(result.user, null)
      case 'identityTaken':
        return this.signedIn(await this.runtime.call((store) => store.getUser(result.account.userId)), null)
      case 'emailTaken':
        // Another sign-up with this verified address won the race: the confirm path, as if it had been first.
        return key === null
          ? this.refuse('AccessDenied', 'a verified address another user has')
          : this.sameAddress(result.user, key)
      case 'userExists':
        return this.refuse('AccessDenied', 'a random user id that exists (the store answered userExists)')
    }
  }

  /**
   * Links the identity to `userId`; null when it is linked now (or was already, to this user),
   * else the refusal: `AccountAlreadyLinked` when another user has it.
   */
  async link(
    userId: string,
    identity: IdentityKey & Pick<StoredAccount, 'type' | 'label'>,
    how: 'asked' | 'confirmed' | 'adopted' | 'by address',
  ): Promise<Identified | null> {
    const now = new Date()
    const account: StoredAccount = { ...identity, id: randomId(), userId, linkedAt: now, lastUsedAt: now }
    const result = await this.runtime.call((store) => store.linkAccount(account))
    if (result.kind === 'noUser') return this.refuse('AccessDenied', 'the user to link to no longer exists', userId)
    if (result.kind === 'identityTaken') {
      if (result.account.userId !== userId)
        return this.refuse('AccountAlreadyLinked', `an identity linked to another user (${how})`, userId)
      await this.runtime.call((store) => store.touchAccount(userId, result.account.id, now))
      return null
    }
    this.ctx.svc.log('info', 'account.linked', `a way in was linked (${how})`, {
      provider: identity.provider,
      ...this.ctx.svc.userForLog(userId),
    })
    this.ctx.audit({ event: 'account.linked', userId, provider: identity.provider })
    await this.runtime.emit('accountLinked', { userId, account: accountInfo(result.account) })
    return null
  }

  private async created(user: User): Promise<void> {
    this.ctx.svc.log('info', 'account.created', 'a sign-in with a new identity created a user', {
      provider: this.providerId,
      ...this.ctx.svc.userForLog(user.id),
    })
    this.ctx.audit({ event: 'user.created', userId: user.id, provider: this.providerId, handle: null })
    await this.runtime.emit('userCreated', { user, provider: this.providerId })
  }

  private newUser(id: string, verified: string | undefined): User {
    const { user } = this.input
    const now = new Date()
    return {
      id,
      name: withoutNul(user.name),
      // The verified address when there is one: the profile's `email` may be another, unverified.
      email: verified ?? withoutNul(user.email),
      emailVerified: verified === undefined ? null : now,
      image: withoutNul(user.image),
      createdAt: now,
    }
  }

  private account(userId: string, key: IdentityKey): StoredAccount {
    const now = new Date()
    return { ...key, id: randomId(), userId, type: this.type(), label: this.label(), linkedAt: now, lastUsedAt: now }
  }

  private type(): StoredAccount['type'] {
    return this.input.account.type
  }

  private label(): string | null {
    const given = this.input.identity?.label ?? this.input.user.email ?? this.input.user.name ?? null
    return withoutNul(given)?.slice(0, 200) ?? null
  }
}
