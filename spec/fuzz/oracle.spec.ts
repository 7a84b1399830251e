import { expectSafeAnswer, type Expected } from './oracle'
import { parseAnswer, type Answer, type RawRequest } from './wire'
import { claimedSite } from './trust-host'
import { asRead, mutate } from './cases'
import { followVia } from './services'
import { VECTORS } from '../support/sessions'

/**
 * The fuzz is only as good as its oracle: a property that can never fail finds nothing. Each
 * violation issue 13 names, on a made-up answer, must be caught; the allowed answers must pass.
 */

const SITE = 'http://localhost:3000'
const expected: Expected = { site: SITE, authorizationEndpoints: ['http://127.0.0.1:9/auth'] }
const get = (target: string): RawRequest => ({ method: 'GET', target, headers: [] })

function answer(status: number, headers: Array<[string, string]> = [], body = ''): Answer {
  return { status, headers, body }
}

describe('the oracle', () => {
  it.each([
    ['a 500 elsewhere', get('/api/auth/session'), answer(500)],
    ['a 503', get('/api/auth/session'), answer(503)],
    ['a 502', get('/api/auth/error?error=Configuration'), answer(502)],
    ['a stack frame', get('/api/auth/x'), answer(404, [], 'Error: x<br> &nbsp; &nbsp;at fn (/app/lib/a.ts:1:2)')],
    ['a file path', get('/api/auth/x'), answer(404, [], `oops in ${process.cwd()}/lib/core/router.ts`)],
    ['a session cookie', get('/api/auth/session'), answer(200, [['set-cookie', 'auth.session-token=abc; Path=/']])],
    ['a session chunk', get('/api/auth/session'), answer(200, [['set-cookie', '__Host-auth.session-token.1=a']])],
    ['an off-site Location', get('/api/auth/signout'), answer(302, [['location', 'https://evil.example/']])],
    ['a protocol-relative Location', get('/api/auth/signout'), answer(302, [['location', '//evil.example/']])],
    ['a javascript: Location', get('/api/auth/signout'), answer(302, [['location', 'javascript:alert(1)']])],
    [
      'an off-site JSON url',
      get('/api/auth/signout'),
      answer(200, [['content-type', 'application/json']], '{"url":"https://evil.example"}'),
    ],
    [
      'an off-site provider URL',
      get('/api/auth/providers'),
      answer(200, [['content-type', 'application/json']], '{"a":{"signinUrl":"http://evil.example/x"}}'),
    ],
    [
      'an off-site form action',
      get('/api/auth/signin'),
      answer(200, [['content-type', 'text/html']], '<form method="post" action="https://evil.example/"></form>'),
    ],
    [
      'markup reflected into a page',
      get('/api/auth/signin'),
      answer(200, [['content-type', 'text/html']], '<input value=""fz=1 x">'),
    ],
    [
      'a CSRF cookie on an answer that may be cached',
      get('/api/auth/signin'),
      answer(200, [['set-cookie', 'auth.csrf-token=t|m; Path=/']]),
    ],
    ['a cacheable session answer', get('/api/auth/session'), answer(200, [['content-type', 'application/json']], '{}')],
    [
      'the IdP, sending the answer elsewhere',
      get('/api/auth/signin/oidc'),
      answer(302, [['location', 'http://127.0.0.1:9/auth?redirect_uri=https%3A%2F%2Fevil.example%2Fcb']]),
    ],
  ])('catches %s', (_label, request, bad) => {
    expect(() => expectSafeAnswer(request, bad, expected)).toThrow()
  })

  it.each([
    ['the Configuration page', get('/api/auth/error?error=Configuration'), answer(500)],
    [
      'a cleared session cookie',
      get('/api/auth/session'),
      answer(200, [['set-cookie', 'auth.session-token=; Max-Age=0']]),
    ],
    ['an on-site Location', get('/api/auth/signout'), answer(302, [['location', `${SITE}/welcome`]])],
    [
      'the IdP, sending the answer back',
      get('/api/auth/signin/oidc'),
      answer(302, [
        ['location', `http://127.0.0.1:9/auth?redirect_uri=${encodeURIComponent(`${SITE}/api/auth/callback/oidc`)}`],
      ]),
    ],
    ['a 429', get('/api/auth/signin/oidc'), answer(429, [['retry-after', '60']])],
  ])('passes %s', (_label, request, good) => {
    expect(() => expectSafeAnswer(request, good, expected)).not.toThrow()
  })

  it('lets a session cookie through only for a complete sign-in', () => {
    const signedIn = answer(302, [
      ['set-cookie', 'auth.session-token=abc'],
      ['cache-control', 'private, no-cache, no-store'],
      ['location', `${SITE}/`],
    ])
    expect(() =>
      expectSafeAnswer(get('/api/auth/callback/oidc'), signedIn, { ...expected, signIn: true }),
    ).not.toThrow()
  })
})

describe('the helpers the oracle relies on', () => {
  it('reads answers off the wire, chunked bodies and 100 Continue included', () => {
    const raw =
      'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n'
    expect(parseAnswer(Buffer.from(raw))).toEqual({
      status: 200,
      headers: [['transfer-encoding', 'chunked']],
      body: 'abc',
    })
    expect(parseAnswer(Buffer.from(''))).toBeNull()
  })

  it('works out the origin a trustHost request names, as docs/options.md says', () => {
    expect(claimedSite([['Host', 'app.example:8080']])).toBe('http://app.example:8080')
    expect(
      claimedSite([
        ['Host', 'a'],
        ['X-Forwarded-Host', 'b.example'],
        ['X-Forwarded-Proto', 'https'],
      ]),
    ).toBe('https://b.example')
    expect(
      claimedSite([
        ['Host', 'a'],
        ['X-Forwarded-Host', ' '],
      ]),
    ).toBe('http://a')
    expect(
      claimedSite([
        ['X-Forwarded-Host', 'a'],
        ['X-Forwarded-Host', 'b'],
      ]),
    ).toBeNull()
    expect(
      claimedSite([
        ['Host', 'a'],
        ['X-Forwarded-Proto', 'ftp'],
      ]),
    ).toBeNull()
    expect(claimedSite([['Host', 'a/b']])).toBeNull()
    expect(claimedSite([['Host', 'a.example:0']])).toBeNull()
    expect(claimedSite([['Host', 'a.example:']])).toBeNull()
    expect(claimedSite([['Host', '[::1]:443']])).toBe('http://[::1]:443')
  })

  it('tells a changed cookie from one that only looks changed', () => {
    expect(mutate('abc', { at: 0.5, op: 'replace', char: 'b' })).not.toBe('abc')
    expect(asRead(' "x%41" ')).toBe('xA')
    expect(asRead('x;y')).toBe('x')
  })

  it('makes twins: another string, the same bytes to a lenient decoder, in one part of the value', () => {
    const decoded = (value: string) => value.split(/[.|]/).map((part) => Buffer.from(part, 'base64url').toString('hex'))
    const values = [VECTORS.ada, `${'a'.repeat(42)}A|${'b'.repeat(42)}A`, 'q'.repeat(16)]
    for (const value of values)
      for (const at of [0, 0.3, 0.6, 0.99])
        for (const char of ['A', 'z', '-', 'é']) {
          const twin = mutate(value, { at, op: 'respell', char })
          expect(twin).not.toBe(value)
          expect(decoded(twin)).toEqual(decoded(value))
        }
    // A value with no base64url part is changed all the same.
    expect(mutate('ada@example.com', { at: 0, op: 'respell', char: '+' })).toBe('ada@example.com+')
  })

  it("has the app's redirect callback follow /via/ targets", () => {
    expect(followVia({ url: `${SITE}/via/${encodeURIComponent('https://evil.example')}` })).toBe('https://evil.example')
    expect(followVia({ url: `${SITE}/via/%E0%A4%A` })).toBe(`${SITE}/via/%E0%A4%A`)
  })
})
