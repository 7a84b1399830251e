import type { Feature, WayIn } from '../../core/feature'
import type { Services } from '../../core/services'
import type { AuditFacts } from '../../core/audit'
import { AuthError, ConfigurationError } from '../../infra/errors'
import { accountInfo, type AccountsRuntime } from './runtime'
import type { UnlinkAccountResult, User } from './store'
import type { AccountInfo } from './types'

/** What the router `auth()` returns offers the app for a user's account page and for erasure. */
export interface AccountHelpers {
  /** The user, or null. */
  getUser(userId: string): Promise<User | null>
  /** The user's ways in (the store's accounts, then the passkeys), the first linked first; never a token or a key. */
  listAccounts(userId: string): Promise<AccountInfo[]>
  /**
   * Unlinks one of the user's ways in (an account's `id` from `listAccounts`, a passkey's too):
   * true when it is gone, false when the user has none by that id. Rejects with an AuthError whose
   * code is `LastSignInMethod` when it is the user's last way in, which is never unlinked.
   */
  unlinkAccount(userId: string, accountId: string): Promise<boolean>
  /**
   * Erasure: ends every session of the user on every instance, then deletes their passkeys, provider
   * tokens, ways in and the user. False when there was no such user (the sessions are ended anyway).
   */
  deleteUser(userId: string): Promise<boolean>
}

/** The ways in the features keep themselves (passkeys), of one user. */
async function keptElsewhere(
  features: readonly Feature[],
  userId: string,
): Promise<Array<WayIn & { feature: Feature }>> {
  const lists = await Promise.all(
    features.flatMap((feature) =>
      feature.waysIn ? [feature.waysIn.list(userId).then((ways) => ways.map((way) => ({ ...way, feature })))] : [],
    ),
  )
  return lists.flat()
}

export async function listWaysIn(runtime: AccountsRuntime, svc: Services, userId: string): Promise<AccountInfo[]> {
  const [own, elsewhere] = await Promise.all([
    runtime.call((store) => store.listAccounts(userId)),
    keptElsewhere(svc.features, userId),
  ])
  const others = elsewhere.map(({ id, provider, type, label, linkedAt, lastUsedAt }) => ({
    id,
    provider,
    type,
    label,
    linkedAt,
    lastUsedAt,
  }))
  return [...own.map(accountInfo), ...others].sort((a, b) => a.linkedAt.getTime() - b.linkedAt.getTime())
}

/** Whether the user has no way in at all, in the store or kept elsewhere. */
async function noneLeft(runtime: AccountsRuntime, svc: Services, userId: string): Promise<boolean> {
  const [own, elsewhere] = await Promise.all([
    runtime.call((store) => store.listAccounts(userId)),
    keptElsewhere(svc.features, userId),
  ])
  return own.length + elsewhere.length === 0
}

/**
 * Unlinks a way in unless it is the last: the store decides for its accounts (counting the
 * passkeys as kept elsewhere, under its own lock); a passkey goes only while another way in is left.
 * The passkeys are not under the store's lock: two unlinks at once, of a passkey and of anything
 * else, could each count the other's way in as left and leave the user none. So after removing,
 * each looks again, and one that finds nothing left puts its way in back (`LastSignInMethod`):
 * the later of two removals always finds the earlier done.
 */
export async function unlinkWayIn(
  runtime: AccountsRuntime,
  svc: Services,
  userId: string,
  accountId: string,
  report: (facts: AuditFacts) => void = (facts) => svc.audit.record(facts),
): Promise<UnlinkAccountResult> {
  const elsewhere = await keptElsewhere(svc.features, userId)
  const kept = elsewhere.find((way) => way.id === accountId)
  let unlinked: AccountInfo
  if (kept === undefined) {
    const own = await runtime.call((store) => store.listAccounts(userId))
    const account = own.find((candidate) => candidate.id === accountId)
    if (account === undefined) return 'missing'
    const result = await runtime.call((store) => store.unlinkAccount(userId, accountId, elsewhere.length))
    if (result !== 'unlinked') return result
    if (await noneLeft(runtime, svc, userId)) {
      await runtime.call((store) => store.linkAccount(account))
      return 'last'
    }
    unlinked = accountInfo(account)
  } else {
    const own = await runtime.call((store) => store.listAccounts(userId))
    if (own.length + elsewhere.length <= 1) return 'last'
    const putBack = await kept.feature.waysIn!.remove(userId, accountId)
    if (putBack === null) return 'missing'
    if (await noneLeft(runtime, svc, userId)) {
      await putBack()
      return 'last'
    }
    const { id, provider, type, label, linkedAt, lastUsedAt } = kept
    unlinked = { id, provider, type, label, linkedAt, lastUsedAt }
  }
  svc.log('info', 'account.unlinked', 'a way in was unlinked', {
    provider: unlinked.provider,
    ...svc.userForLog(userId),
  })
  // A passkey is a way in of its own: its removal is recorded as one.
  report({
    event: unlinked.type === 'webauthn' ? 'passkey.removed' : 'account.unlinked',
    userId,
    provider: unlinked.provider,
  })
  await runtime.emit('accountUnlinked', { userId, account: unlinked })
  return 'unlinked'
}

export function createAccountHelpers(runtime: AccountsRuntime | null, services: () => Services): AccountHelpers {
  const ready = (userId: unknown, method: string): AccountsRuntime => {
    if (!runtime) throw new ConfigurationError(`${method}() needs the \`accounts\` option of auth()`)
    if (typeof userId !== 'string' || userId === '') throw new TypeError(`${method}(userId) takes a user id`)
    return runtime
  }
  return Object.freeze({
    // Async, as the others: a missing option or a wrong id rejects the promise rather than throw at the call.
    async getUser(userId: string) {
      return ready(userId, 'getUser').call((store) => store.getUser(userId))
    },
    async listAccounts(userId: string) {
      return listWaysIn(ready(userId, 'listAccounts'), services(), userId)
    },
    async unlinkAccount(userId: string, accountId: string) {
      const result = await unlinkWayIn(ready(userId, 'unlinkAccount'), services(), userId, String(accountId))
      if (result === 'last') throw new AuthError('LastSignInMethod', "the user's last way in is never unlinked")
      return result === 'unlinked'
    },
    async deleteUser(userId: string) {
      const accounts = ready(userId, 'deleteUser')
      const svc = services()
      // Sessions first: from now on no request is this user, while the rest is deleted.
      await svc.sessions.revokeAll(userId)
      for (const feature of svc.features) await feature.userDeleted?.(userId)
      const existed = await accounts.call((store) => store.deleteUser(userId))
      // Again once the user is gone: a sign-in that read the user before, and stored its session
      // since, checks for the user only after storing it (identify.ts userStillThere).
      await svc.sessions.revokeAll(userId)
      svc.log('info', 'account.deleted', 'a user was deleted (erasure)', svc.userForLog(userId))
      if (existed) svc.audit.record({ event: 'user.deleted', userId })
      await accounts.emit('userDeleted', { userId })
      return existed
    },
  } satisfies AccountHelpers)
}
