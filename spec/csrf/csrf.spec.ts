import { keyRing } from '../../lib/infra/crypto/keys'
import { createCsrf } from '../../lib/infra/csrf'
import { mac } from '../../lib/infra/crypto/mac'

describe('signed double-submit CSRF', () => {
  const csrf = createCsrf(keyRing(['c'.repeat(40)], 'csrf'))

  it('verifies a token against its own signed cookie', () => {
    const { token, cookieValue } = csrf.issue()
    expect(cookieValue.startsWith(`${token}|`)).toBe(true)
    expect(csrf.read(cookieValue)).toBe(token)
    expect(csrf.verify(cookieValue, token)).toBe(true)
  })

  it('refuses a missing, different or non-string token', () => {
    const { cookieValue } = csrf.issue()
    for (const submitted of [undefined, '', 'nope', ['x'], { token: 'x' }, csrf.issue().token]) {
      expect(csrf.verify(cookieValue, submitted)).toBe(false)
    }
  })

  it('refuses a cookie whose MAC does not match (a planted pair)', () => {
    const { token } = csrf.issue()
    const planted = `${token}|${'A'.repeat(43)}`
    expect(csrf.read(planted)).toBeNull()
    expect(csrf.verify(planted, token)).toBe(false)
    const other = createCsrf(keyRing(['d'.repeat(40)], 'csrf')).issue()
    expect(csrf.verify(other.cookieValue, other.token)).toBe(false)
  })

  it('reads nothing from malformed cookies', () => {
    for (const value of [undefined, '', '|', 'abc', '|abc', 'a|b|c', 'x'.repeat(300), { j: 1 }]) {
      expect(csrf.read(value)).toBeNull()
    }
  })

  it('accepts cookies signed with an older secret after rotation', () => {
    const before = createCsrf(keyRing(['o'.repeat(40)], 'csrf')).issue()
    const rotated = createCsrf(keyRing(['n'.repeat(40), 'o'.repeat(40)], 'csrf'))
    expect(rotated.verify(before.cookieValue, before.token)).toBe(true)
  })

  it('refuses a cookie with an empty token, though its MAC is right', () => {
    const ring = keyRing(['c'.repeat(40)], 'csrf')
    const cookieValue = `|${mac(ring.current, '')}`
    expect(csrf.read(cookieValue)).toBeNull()
    expect(csrf.verify(cookieValue, '')).toBe(false)
  })

  it('reads a signed cookie of up to 256 characters, and nothing longer', () => {
    const exact = csrf.resign('t'.repeat(256 - 44))
    expect(exact.cookieValue).toHaveLength(256)
    expect(csrf.verify(exact.cookieValue, exact.token)).toBe(true)
    const longer = csrf.resign('t'.repeat(256 - 43))
    expect(csrf.read(longer.cookieValue)).toBeNull()
    expect(csrf.verify(longer.cookieValue, longer.token)).toBe(false)
  })
})
