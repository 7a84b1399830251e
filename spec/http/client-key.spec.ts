import { clientKey } from '../../lib/infra/http/client-key'

describe('the key a rate limit counts a client under', () => {
  it('is the IPv4 address, or the IPv6 /64, without a zone', () => {
    expect(clientKey('203.0.113.7')).toBe('203.0.113.7')
    expect(clientKey('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64')
    expect(clientKey('2001:db8:1:2::9')).toBe(clientKey('2001:db8:1:2:aaaa::1'))
    expect(clientKey(`fe80::1%${'x'.repeat(10_000)}`)).toBe('fe80:0:0:0::/64')
  })

  it('writes one client one way: case, leading zeros and IPv4-mapped forms make no new key', () => {
    for (const form of ['2001:DB8::1', '2001:0db8::1', '2001:0DB8:0000:0000::ffff', '2001:db8:0:0:1::'])
      expect(clientKey(form)).toBe('2001:db8:0:0::/64')
    for (const form of ['::ffff:203.0.113.7', '::FFFF:203.0.113.7', '0:0:0:0:0:ffff:203.0.113.7', '::ffff:cb00:7107'])
      expect(clientKey(form)).toBe('203.0.113.7')
    // Other addresses with an IPv4 tail are IPv6 addresses like any other.
    expect(clientKey('::1.2.3.4')).toBe('0:0:0:0::/64')
    expect(clientKey('64:ff9b::1.2.3.4')).toBe('64:ff9b:0:0::/64')
  })

  it('counts whatever is no IP (a forged X-Forwarded-For behind trust proxy) under one key', () => {
    for (const forged of ['a'.repeat(14_000), 'not an ip', '1.2.3.4, 5.6.7.8', '', '999.1.1.1'])
      expect(clientKey(forged)).toBe('invalid')
    expect(clientKey(undefined)).toBe('unknown')
  })
})
