import { safeCallbackUrl } from '../../lib/urls/callback-url'
import { baseUrl } from '../../lib/config/url'

const base = baseUrl('https://app.example.com', '/api/auth')
const trusted = new Set(['https://admin.example.com'])
const check = (value: unknown) => safeCallbackUrl(value, base, trusted)
const ORIGIN = 'https://app.example.com/'

describe('callbackUrl validation', () => {
  it.each([
    ['/dashboard?tab=1#top', 'https://app.example.com/dashboard?tab=1#top'],
    ['dashboard', 'https://app.example.com/dashboard'],
    ['https://app.example.com/x', 'https://app.example.com/x'],
    ['https://admin.example.com/y', 'https://admin.example.com/y'],
    ['HTTPS://APP.EXAMPLE.COM/z', 'https://app.example.com/z'],
  ])('keeps %s', (value, expected) => {
    expect(check(value)).toBe(expected)
  })

  it.each([
    'https://evil.example/',
    'http://app.example.com/',
    'https://app.example.com.evil.example/',
    '//evil.example/',
    '///evil.example',
    '/\\evil.example',
    '\\\\evil.example',
    '/\t/evil.example',
    'https://user:pw@app.example.com/',
    'https://app.example.com@evil.example/',
    'javascript:alert(1)',
    'data:text/html,x',
    'http:evil.example',
    'https://[::1',
    '',
    ' ',
    'x'.repeat(3000),
    undefined,
    null,
    42,
    ['/a'],
    { url: '/a' },
  ])('replaces %p with the origin', (value) => {
    expect(check(value)).toBe(ORIGIN)
  })

  it('keeps an encoded "//" as a path on the origin, where it cannot leave the site', () => {
    expect(check('%2F%2Fevil.example')).toBe('https://app.example.com/%2F%2Fevil.example')
  })
})
