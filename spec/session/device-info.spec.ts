import type { Request } from 'express'
import { deviceOf, MAX_USER_AGENT, storedDevice, userAgentOf } from '../../lib/core/session/device-info'

/**
 * What is kept of the request that signs in, for `listSessions`: a User-Agent a page or a log can
 * print (no control characters, bounded), the address as the rate limits count it, and a stored
 * entry read back as nothing but what we write.
 */
describe('what a device keeps of its sign-in', () => {
  const request = (headers: Record<string, unknown>, ip: string | undefined) => ({ headers, ip }) as unknown as Request

  it('strips control characters from the User-Agent and cuts it at MAX_USER_AGENT characters', () => {
    expect(userAgentOf('Firefox\u0000/1\r\n\u001b[31m\u0085\u007f')).toBe('Firefox/1[31m')
    expect(userAgentOf('a'.repeat(5000))).toHaveLength(MAX_USER_AGENT)
    expect(MAX_USER_AGENT).toBe(256)
    for (const value of [undefined, '', ' \t ', ['Firefox'], 42]) expect(userAgentOf(value)).toBeNull()
  })

  it('keeps the address truncated like the rate limits, and null for none or one that is not an address', () => {
    const of = (ip: string | undefined) => deviceOf(request({}, ip), {}).address
    expect(of('2001:DB8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64')
    expect(of('::ffff:203.0.113.7')).toBe('203.0.113.7')
    expect(of('198.51.100.1')).toBe('198.51.100.1')
    expect(of('not-an-ip')).toBeNull()
    expect(of(undefined)).toBeNull()
  })

  it('takes the provider from the record when it names one', () => {
    expect(deviceOf(request({}, undefined), { provider: 'github' }).provider).toBe('github')
    expect(deviceOf(request({}, undefined), { provider: 42 }).provider).toBeNull()
    expect(deviceOf(request({}, undefined), {}).provider).toBeNull()
  })

  it('reads back a stored entry as strings or null, whatever the store holds', () => {
    expect(storedDevice({ userAgent: 'ua', address: '203.0.113.7', provider: 'email' })).toEqual({
      userAgent: 'ua',
      address: '203.0.113.7',
      provider: 'email',
    })
    expect(storedDevice({ userAgent: { toString: 1 }, address: ['x'], provider: '' })).toEqual({
      userAgent: null,
      address: null,
      provider: null,
    })
    expect(storedDevice({ userAgent: 'x'.repeat(1000), address: 'y'.repeat(1000) })).toEqual({
      userAgent: 'x'.repeat(256),
      address: 'y'.repeat(64),
      provider: null,
    })
    for (const value of [null, undefined, 'text', 42]) expect(storedDevice(value)).toBeNull()
  })
})
