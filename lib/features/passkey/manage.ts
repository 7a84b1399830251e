import { ConfigurationError } from '../../infra/errors'
import { hasControls } from '../../infra/logger'
import { modelOf } from './aaguid'
import type { PasskeyRuntime } from './runtime'
import type { Audit } from '../../core/audit'

/** A passkey as the app lists it for its user: never its key or counter. */
export interface PasskeyInfo {
  readonly id: string
  readonly name: string
  readonly createdAt: Date
  readonly lastUsedAt: Date | null
  /** Synced to the user's other devices (a backed-up, multi-device passkey). */
  readonly backedUp: boolean
  readonly aaguid: string
  /** The authenticator's model when its AAGUID is a known one (iCloud Keychain, Google Password Manager, …). */
  readonly model: string | null
}

/** What the router `auth()` returns offers the app for its "your passkeys" page. */
export interface PasskeyHelpers {
  /** The user's passkeys, oldest first. */
  listPasskeys(userId: string): Promise<PasskeyInfo[]>
  /** Renames one of the user's passkeys (1 to 64 characters); false when the user has no such passkey. */
  renamePasskey(userId: string, passkeyId: string, name: string): Promise<boolean>
  /** Deletes one of the user's passkeys; false when the user has no such passkey. */
  deletePasskey(userId: string, passkeyId: string): Promise<boolean>
}

export function createPasskeyHelpers(runtime: PasskeyRuntime | null, audit: Audit): PasskeyHelpers {
  const store = () => {
    if (!runtime) throw new ConfigurationError('the passkey helpers need a passkey() provider in `providers`')
    return runtime.store
  }
  // Only the user's own: an id from a request never reaches another user's passkey.
  const owned = async (userId: string, passkeyId: string) => {
    const passkey = typeof passkeyId === 'string' ? await store().get(passkeyId) : null
    return passkey !== null && passkey.userId === userId
  }
  return Object.freeze({
    async listPasskeys(userId: string) {
      const passkeys = await store().listByUser(userId)
      return passkeys
        .sort((a, b) => a.createdAt - b.createdAt)
        .map((passkey) => ({
          id: passkey.id,
          name: passkey.name,
          createdAt: new Date(passkey.createdAt),
          lastUsedAt: passkey.lastUsedAt === null ? null : new Date(passkey.lastUsedAt),
          backedUp: passkey.backedUp,
          aaguid: passkey.aaguid,
          model: modelOf(passkey.aaguid),
        }))
    },
    async renamePasskey(userId: string, passkeyId: string, name: string) {
      if (typeof name !== 'string' || name.trim() === '' || name.length > 64 || hasControls(name)) return false
      if (!(await owned(userId, passkeyId))) return false
      await store().update(passkeyId, { name: name.trim() })
      return true
    },
    async deletePasskey(userId: string, passkeyId: string) {
      if (!(await owned(userId, passkeyId))) return false
      await store().delete(passkeyId)
      audit.record({ event: 'passkey.removed', userId, provider: runtime?.provider.id ?? null })
      return true
    },
  })
}
