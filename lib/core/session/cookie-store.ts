import { open, seal } from '../../infra/crypto/jwe'
import type { KeyRing } from '../../infra/crypto/keys'
import type { OpenedRecord, RecordStore } from './record-store'
import { fromClaims, toClaims } from './record'

/**
 * Strategy `cookie`: the whole record travels in the cookie as a JWE under the session key.
 * There is nothing to remove on the server: sign-out clears the cookie, and signing a user out
 * everywhere records a revocation time that the manager checks every session against.
 */
export function cookieStore(ring: KeyRing): RecordStore {
  return Object.freeze({
    async read(token: string, nowSeconds: number, maxLifetime: number): Promise<OpenedRecord | null> {
      const record = fromClaims(open(ring, token), nowSeconds, maxLifetime)
      // One token always opens to the same record: what was found about it holds while it lives.
      return record && { record, reuse: 'always' }
    },
    async write(record: Parameters<RecordStore['write']>[0]) {
      return seal(ring.current, toClaims(record))
    },
    async remove() {},
    async removeAll() {},
  })
}
