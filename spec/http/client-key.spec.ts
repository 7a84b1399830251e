import { clientKey } from '../../lib/http/client-key'

describe('the key a rate limit counts a client under', () => {
  it('is the IPv4 address, or the IPv6 /64, without a zone', () => {
    expect(clientKey('203.0.113.7')).toBe('203.0.113.7')
    expect(clientKey('::ffff:203.0.113.7')).toBe('::ffff:203.0.113.7')
    expect(clientKey('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64')
    expect(clientKey('2001:db8:1:2::9')).toBe(clientKey('2001:db8:1:2:aaaa::1'))
    expect(clientKey(`fe80::1%${'x'.repeat(10_000)}`)).toBe('fe80:0:0:0::/64')
  })

  it('counts whatever is no IP (a forged X-Forwarded-For behind trust proxy) under one key', () => {
    for (const forged of ['a'.repeat(14_000), 'not an ip', '1.2.3.4, 5.6.7.8', '', '999.1.1.1'])
      expect(clientKey(forged)).toBe('invalid')
    expect(clientKey(undefined)).toBe('unknown')
  })
})
