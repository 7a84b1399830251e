import { chooseCallbackUrl, MAX_CALLBACK_URL_LENGTH, safeCallbackUrl } from '../../lib/infra/urls/callback-url'
import { baseUrl } from '../../lib/infra/urls/base-url'

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
    ['/a//', 'https://app.example.com/a//'],
    [
      `${ORIGIN}${'a'.repeat(MAX_CALLBACK_URL_LENGTH - ORIGIN.length)}`,
      `${ORIGIN}${'a'.repeat(MAX_CALLBACK_URL_LENGTH - ORIGIN.length)}`,
    ],
  ])('keeps %s', (value, expected) => {
    expect(check(value)).toBe(expected)
  })

  it.each([
    'https://evil.example/',
    'http://app.example.com/',
    'https://app.example.com.evil.example/',
    '//evil.example/',
    '///evil.example',
    '//admin.example.com/y',
    '//app.example.com/x',
    '/\\evil.example',
    '\\\\evil.example',
    '/\t/evil.example',
    'https://user:pw@app.example.com/',
    'https://app.example.com@evil.example/',
    'https://user@app.example.com/',
    'https://:pw@app.example.com/',
    'javascript:alert(1)',
    'data:text/html,x',
    'http:evil.example',
    'https://[::1',
    '',
    ' ',
    'x'.repeat(3000),
    `${ORIGIN}${'a'.repeat(MAX_CALLBACK_URL_LENGTH - ORIGIN.length + 1)}`,
    // Over the limit as sent, though it resolves to a short URL on the origin.
    `/${'./'.repeat(MAX_CALLBACK_URL_LENGTH)}x`,
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

  it('logs a refused callbackUrl once, without the URL itself', async () => {
    const log = jest.fn()
    expect(await chooseCallbackUrl('https://evil.example/', base, trusted, undefined, log)).toBe(ORIGIN)
    expect(log).toHaveBeenCalledWith(
      'info',
      'redirect.rejected',
      'a callbackUrl outside the trusted origins was replaced by the site origin',
    )
    expect(JSON.stringify(log.mock.calls)).not.toContain('evil')
  })
})
