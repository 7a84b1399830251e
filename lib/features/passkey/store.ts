import { boundedCache } from '../../infra/util/cache'

/**
 * Passkeys as the package keeps them, and where: the PasskeyStore interface (Redis's, this
 * process's memory, or the app's own database), and the store of ceremony challenges.
 */

/** The user a passkey signs in as: a copy of the session's user when the passkey was added. */
export interface PasskeyUser {
  readonly name: string | null
  readonly email: string | null
  readonly image: string | null
}

/** One registered credential. Binary values are base64url text. */
export interface StoredPasskey {
  /** The credential ID. */
  readonly id: string
  /** The user it signs in: `record.userId` of the session that added it. */
  readonly userId: string
  /** The WebAuthn user handle on the authenticator: random, never the e-mail address or the user id. */
  readonly userHandle: string
  /** The COSE public key. */
  readonly publicKey: string
  /** The signature counter last seen (0: the authenticator keeps none). */
  readonly counter: number
  readonly transports: readonly string[]
  /** Shown to the user in the app's list; the app can rename it. */
  readonly name: string
  /** Milliseconds since the epoch. */
  readonly createdAt: number
  readonly lastUsedAt: number | null
  /** Synced to the user's other devices (a multi-device passkey that is backed up). */
  readonly backedUp: boolean
  readonly deviceType: 'singleDevice' | 'multiDevice'
  /** The authenticator's model, as a UUID (all zeros when the authenticator does not say). */
  readonly aaguid: string
  readonly user: PasskeyUser
}

/** What a sign-in or a rename changes. */
export type PasskeyChanges = Partial<Pick<StoredPasskey, 'counter' | 'lastUsedAt' | 'backedUp' | 'name'>>

/**
 * Where passkeys are kept: Redis when `redis` is set, this process's memory for development, or the
 * app's own database (give `passkey({ store })` an object with these methods). `create` must be
 * atomic: two registrations of one credential ID make one passkey.
 */
export interface PasskeyStore {
  /** Keeps a new passkey; false (and nothing changed) when one with its ID exists. */
  create(passkey: StoredPasskey): Promise<boolean>
  get(id: string): Promise<StoredPasskey | null>
  listByUser(userId: string): Promise<StoredPasskey[]>
  /** Changes an existing passkey's fields; nothing when there is none. */
  update(id: string, changes: PasskeyChanges): Promise<void>
  delete(id: string): Promise<void>
  /** The user's handle: the one kept, else `fresh`, kept from now on (two first calls agree on one). */
  userHandle(userId: string, fresh: string): Promise<string>
}

/** The most passkeys the in-memory store keeps (it is for development only). */
export const MEMORY_PASSKEYS = 10_000

/** Passkeys in this process's memory: lost on restart, not shared between instances (said at start-up). */
export function memoryPasskeyStore(max = MEMORY_PASSKEYS): PasskeyStore {
  const byId = new Map<string, StoredPasskey>()
  const handles = new Map<string, string>()
  return Object.freeze({
    async create(passkey: StoredPasskey) {
      if (byId.has(passkey.id) || byId.size >= max) return false
      byId.set(passkey.id, passkey)
      return true
    },
    async get(id: string) {
      return byId.get(id) ?? null
    },
    async listByUser(userId: string) {
      return [...byId.values()].filter((passkey) => passkey.userId === userId)
    },
    async update(id: string, changes: PasskeyChanges) {
      const passkey = byId.get(id)
      if (passkey) byId.set(id, { ...passkey, ...changes })
    },
    async delete(id: string) {
      byId.delete(id)
    },
    async userHandle(userId: string, fresh: string) {
      const kept = handles.get(userId)
      if (kept !== undefined) return kept
      if (handles.size < max) handles.set(userId, fresh)
      return fresh
    },
  })
}

/**
 * The challenges of ceremonies in progress, by the keyed hash of the browser's challenge cookie.
 * `take` gets and deletes in one step, so a challenge is spent once, on whichever instance.
 */
export interface ChallengeStore {
  put(key: string, value: string, ttlMs: number): Promise<void>
  take(key: string): Promise<string | null>
}

export function memoryChallengeStore(max = 10_000): ChallengeStore {
  const entries = boundedCache<string, string>(max)
  return Object.freeze({
    async put(key: string, value: string, ttlMs: number) {
      entries.set(key, value, { ttl: ttlMs })
    },
    async take(key: string) {
      const value = entries.get(key)
      entries.delete(key)
      return value ?? null
    },
  })
}
