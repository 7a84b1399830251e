import { keyRing } from '../../lib/infra/crypto/keys'
import { mac, safeEqual, verifyMac } from '../../lib/infra/crypto/mac'

describe('MACs and comparison', () => {
  const ring = keyRing(['k'.repeat(40)], 'csrf')

  it('binds the parts and their boundaries', () => {
    expect(mac(ring.current, 'ab', 'c')).not.toBe(mac(ring.current, 'a', 'bc'))
    expect(verifyMac(ring, mac(ring.current, 'a', 'b'), 'a', 'b')).toBe(true)
    expect(verifyMac(ring, mac(ring.current, 'a', 'b'), 'a', 'c')).toBe(false)
  })

  it('compares strings of any length without throwing', () => {
    expect(safeEqual('abc', 'abc')).toBe(true)
    expect(safeEqual('abc', 'abd')).toBe(false)
    expect(safeEqual('abc', 'abcd')).toBe(false)
    expect(safeEqual('', '')).toBe(true)
  })

  it('derives a different key for each purpose', () => {
    expect(keyRing(['k'.repeat(40)], 'session').current.equals(ring.current)).toBe(false)
  })
})
