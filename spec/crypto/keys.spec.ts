import { deriveKey, keyRing, type KeyPurpose } from '../../lib/infra/crypto/keys'
import { SECRET } from '../support/app'
import { KEYS, OTHER_SECRET } from '../support/sessions'

// Known answers computed outside lib/ (node's hkdfSync, cross-checked with OpenSSL's HKDF): a changed
// hash, salt, label or length fails here, not only in specs that derive the same wrong key.
describe('key derivation (HKDF-SHA256, salt "express-auth-service", info "express-auth-service v1 <purpose>")', () => {
  it.each([
    ['session', SECRET, KEYS.session],
    ['csrf', SECRET, KEYS.csrf],
    ['session', OTHER_SECRET, KEYS.otherSecretSession],
  ] as const)('derives the known %s key', (purpose, secret, hex) => {
    expect(deriveKey(secret, purpose).toString('hex')).toBe(hex)
  })

  it('gives every purpose its own key', () => {
    const purposes: KeyPurpose[] = ['session', 'csrf', 'oauth-flow', 'oauth-state']
    const keys = new Set(purposes.map((purpose) => deriveKey(SECRET, purpose).toString('hex')))
    expect(keys.size).toBe(purposes.length)
  })

  it('keyRing seals with the first secret and opens with all, in order (rotation)', () => {
    const ring = keyRing([OTHER_SECRET, SECRET], 'session')
    expect(ring.current.toString('hex')).toBe(KEYS.otherSecretSession)
    expect(ring.all.map((key) => key.toString('hex'))).toEqual([KEYS.otherSecretSession, KEYS.session])
  })

  it('keyRing needs a secret', () => {
    expect(() => keyRing([], 'session')).toThrow('keyRing needs at least one secret')
  })
})
