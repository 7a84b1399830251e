import type { Services } from '../../core/services'
import { announceUser, randomId } from '../accounts/runtime'
import type { CreateUserResult, StoredAccount } from '../accounts/store'
import type { PasswordRuntime } from './runtime'

/** The password account of `userId` for `identifier`, with its hash: what sign-up and "add a password" keep. */
export function passwordAccount(
  runtime: PasswordRuntime,
  userId: string,
  identifier: string,
  hash: string,
  lastUsedAt: Date | null,
): StoredAccount {
  const now = new Date()
  return {
    id: randomId(),
    userId,
    provider: runtime.provider.id,
    issuer: '',
    subject: identifier,
    type: 'credentials',
    label: identifier,
    linkedAt: now,
    lastUsedAt,
    passwordHash: hash,
  }
}

/**
 * A new user and their password account, together or not at all (a sign-up: `verified` when the
 * address was just confirmed by its link); a user it made is logged and told to the app.
 */
export async function createPasswordUser(
  runtime: PasswordRuntime,
  svc: Services,
  details: { identifier: string; name: string | null; email: string | null; hash: string },
): Promise<CreateUserResult> {
  const now = new Date()
  const userId = randomId()
  const user = {
    id: userId,
    name: details.name,
    email: details.email,
    emailVerified: details.email === null ? null : now,
    image: null,
    createdAt: now,
  }
  const account = passwordAccount(runtime, userId, details.identifier, details.hash, now)
  const created = await runtime.accounts.call((store) => store.createUser(user, account))
  if (created.kind === 'created') await announceUser(runtime.accounts, svc, created.user, runtime.provider.id)
  return created
}
