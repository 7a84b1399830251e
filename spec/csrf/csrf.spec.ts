import { keyRing } from '../../lib/crypto/keys'
import { createCsrf } from '../../lib/csrf'

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
})
