import fc from 'fast-check'

/**
 * The values the fuzz is made of. Uniform random strings almost never hit a parser's edge, so each
 * arbitrary mixes three sources: strings that have broken URL, cookie, mail and JSON handling
 * before (NASTY), values shaped like the real ones (same alphabet and length, so that they pass the
 * cheap shape checks and reach the MAC, the store lookup or the token request), and free text.
 */

const B64URL = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_']

/** base64url text: the shape of every token the service issues (CSRF, flow id, state MAC, e-mail token). */
export function b64url(minLength: number, maxLength = minLength): fc.Arbitrary<string> {
  return fc.string({ unit: fc.constantFrom(...B64URL), minLength, maxLength })
}

export const NASTY: readonly string[] = [
  '',
  ' ',
  '%',
  '%ZZ',
  '%E0%A4%A',
  '%00',
  '%2F',
  '%2e%2e',
  '%25',
  '..',
  '/',
  '\\',
  '//evil.example',
  '\\\\evil.example',
  '/\\evil.example',
  'https://evil.example',
  'javascript:alert(1)',
  '\u0000',
  '\t',
  '\u2028',
  '\ufeff',
  '\ud800',
  '\udfff\ud800',
  '😀',
  'é',
  'İ',
  '＠',
  '<script>alert(1)</script>',
  `"'><`,
  // Markers the oracle looks for in pages: reflected unescaped, they would be markup (../oracle).
  '<fz>',
  '"fz=1',
  "'fz=1",
  '${7*7}',
  '<%= 7*7 %>',
  '__proto__',
  'constructor',
  'hasOwnProperty',
  'true',
  'false',
  'null',
  '[]',
  '{}',
  'j:{"a":1}',
  '"quoted"',
  '0',
  '-1',
  '1e309',
  'a|b',
  'a.b.c.d.e',
  '....',
  'eyJhbGciOiJub25lIn0.eyJzdWIiOiJhZG1pbiJ9.',
]

/** Free text: the nasty list, combinations of it, binary and Unicode strings, long runs. */
export const text: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...NASTY) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...NASTY), fc.constantFrom(...NASTY)).map(([a, b]) => a + b) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom('a', '%', '/', 'é', '.', '\u0000', '%2F'), fc.integer({ min: 60, max: 5000 }))
      .map(([unit, count]) => unit.repeat(count)),
  },
)

/**
 * Header text. Never CR or LF: that would be another request, which the oracle could not know of.
 * Other control characters make Node refuse the request before the service sees it, so they are
 * rare; bytes over 0x7F (obs-text) pass and reach the service.
 */
export const headerText = fc.oneof(
  {
    weight: 59,
    // eslint-disable-next-line no-control-regex -- removing control characters is the point
    arbitrary: text.map((value) => value.replace(/[\u0000-\u0008\u000a-\u001f\u007f]/g, '').slice(0, 2000)),
  },
  { weight: 1, arbitrary: text.map((value) => `${value.replace(/[\r\n]/g, ' ').slice(0, 2000)}\u0001`) },
)

/** Any JSON value, for fields of JSON bodies: a string field that arrives as an array or object. */
export const jsonValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: text },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
)

/**
 * callbackUrl values for a site: relative paths, the site's own URLs dressed up, and every form the
 * contract says must become the origin (other origins, protocol-relative, backslash, userinfo,
 * other schemes, control characters), including near misses of the site (same port on another host).
 */
export function callbackUrl(site: string): fc.Arbitrary<string> {
  const { host, port } = new URL(site)
  const forms = [
    '/',
    '/welcome',
    'welcome',
    '/a?b=c#d',
    '../../x',
    '/%2F%2Fevil.example',
    '/%5Cevil.example',
    '/\\evil.example',
    '/\t/evil.example',
    '/\n/evil.example',
    '///evil.example',
    '/.//evil.example',
    '\\/evil.example',
    '//evil.example',
    'https://evil.example',
    'http:evil.example',
    'http:/evil.example',
    'HTTP://EVIL.EXAMPLE',
    'ftp://evil.example',
    'javascript:alert(document.cookie)',
    'data:text/html,<script>alert(1)</script>',
    `${site}/welcome`,
    `${site.toUpperCase()}/welcome`,
    `${site}@evil.example`,
    `${site}.evil.example/`,
    `${site}\\@evil.example`,
    `http://evil.example\\@${host}/`,
    `http://evil.example#@${host}/`,
    `http://evil.example?@${host}/`,
    `http://user:pass@${host}/`,
    `http://127.0.0.1:${port}/`,
    `http://[::1]:${port}/`,
    `http://ⓛocalhost:${port}/`,
    `https://${host}/`,
    `http://${host}:${Number(port) + 1}/`,
    `http://${host}%2F@evil.example/`,
    ` ${site}/`,
    `${site}/${'é'.repeat(700)}`,
    `/${'a'.repeat(2040)}`,
  ]
  // The app's redirect callback (../services `followVia`) answers the URL after `/via/`.
  const via = fc.constantFrom(...forms).map((form) => `/via/${encodeURIComponent(form)}`)
  return fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...forms) },
    { weight: 2, arbitrary: via },
    { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...forms), text).map(([form, tail]) => form + tail) },
    { weight: 1, arbitrary: fc.webUrl({ withQueryParameters: true, withFragments: true }) },
    { weight: 1, arbitrary: text },
  )
}

/** Addresses: real-looking ones (which get a mail sent), near misses the shape check must refuse, and text. */
export const emailAddress: fc.Arbitrary<string> = fc.oneof(
  { weight: 2, arbitrary: fc.emailAddress() },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      'a@b',
      '@example.com',
      'a@@example.com',
      'a@example.com,b@example.com',
      'a@example.com;b@example.com',
      '"a b"@example.com',
      'A <a@example.com>',
      'a@example.com\r\nBcc: x@example.org',
      'user%evil.example@example.com',
      'evil.example!user@example.com',
      'a@ｅxample.com',
      'a＠example.com',
      'a@bücher.example',
      'a@xn--bcher-kva.example',
      'a@127.0.0.1',
      'a@[127.0.0.1]',
      'a@example.com.',
      ' A@Example.COM ',
      'a..b@example.com',
      '.a@example.com',
      '=?utf-8?q?x?=@example.com',
      'a\u200b@example.com',
      `${'a'.repeat(65)}@example.com`,
      `a@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.${'e'.repeat(61)}`,
      `${'a'.repeat(1100)}@example.com`,
    ),
  },
  { weight: 1, arbitrary: fc.tuple(fc.emailAddress(), text).map(([address, tail]) => address + tail) },
  { weight: 1, arbitrary: text },
)

/** Shaped like an issued token of `length` characters, or a near miss (one off, padded, base64 not url). */
export function tokenLike(length: number): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 5, arbitrary: b64url(length) },
    { weight: 1, arbitrary: b64url(length - 1) },
    { weight: 1, arbitrary: b64url(length + 1) },
    { weight: 1, arbitrary: b64url(length).map((token) => `${token}=`) },
    { weight: 1, arbitrary: b64url(length).map((token) => token.replace(/-/g, '+').replace(/_/g, '/')) },
    { weight: 1, arbitrary: b64url(125, 131) },
    { weight: 2, arbitrary: text },
  )
}

/** `state`: `<flow id>.<MAC>` as the service makes it, or a broken version of that shape. */
export const stateLike: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.tuple(b64url(16), b64url(43)).map(([id, mac]) => `${id}.${mac}`) },
  { weight: 1, arbitrary: fc.tuple(b64url(0, 20), text).map(([id, rest]) => `${id}.${rest}`) },
  { weight: 1, arbitrary: b64url(250, 260).map((long) => `${long.slice(0, 16)}.${long}`) },
  { weight: 2, arbitrary: tokenLike(60) },
)

/** `error` values: every code the pages know, lower-cased and padded variants, and text. */
export const errorCode: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      ...['Configuration', 'AccessDenied', 'Verification', 'Signin', 'OAuthSignin', 'OAuthCallback'],
      ...['OAuthCreateAccount', 'EmailCreateAccount', 'Callback', 'OAuthAccountNotLinked', 'EmailSignin'],
      ...['CredentialsSignin', 'SessionRequired', 'MissingCSRF', 'Default', 'access_denied', 'configuration'],
      ...['Configuration ', 'Configuration\u0000', 'InvalidHost', 'NotFound', 'ServiceUnavailable'],
    ),
  },
  { weight: 1, arbitrary: text },
)

/** `everywhere`: the two values it takes, their look-alikes, and text. */
export const everywhere = fc.oneof(fc.constantFrom('true', 'false', 'TRUE', '1', 'yes', ''), text)

/**
 * Every request parameter the routes read, by name, with values shaped for it. A generated field
 * or query pair draws its name from here (or is free text) and its value from the name's arbitrary.
 */
export function parameters(site: string): Record<string, fc.Arbitrary<string>> {
  return {
    callbackUrl: callbackUrl(site),
    email: emailAddress,
    state: stateLike,
    code: tokenLike(43),
    token: tokenLike(43),
    csrfToken: tokenLike(43),
    error: errorCode,
    everywhere,
    json: fc.constantFrom('true', 'false', '1', ''),
    iss: fc.constantFrom('', site, 'http://127.0.0.1', 'https://evil.example'),
    provider: fc.constantFrom('email', 'oidc', 'nope'),
    type: fc.constantFrom('email', 'oauth'),
    csrf: fc.constantFrom('true', 'false'),
    redirect_uri: callbackUrl(site),
    response_type: fc.constantFrom('token', 'code id_token'),
    scope: fc.constantFrom('openid', 'openid email offline_access', ''),
    prompt: fc.constantFrom('none', 'login', 'consent'),
    // Back-channel logout: compact JWS shapes (unsigned, made-up parts) and free tokens.
    logout_token: fc.oneof(
      tokenLike(43),
      fc.tuple(tokenLike(20), tokenLike(60), tokenLike(43)).map((parts) => parts.join('.')),
      fc.constantFrom('eyJhbGciOiJub25lIn0.eyJpc3MiOiJ4In0.', 'eyJhbGciOiJIUzI1NiJ9.e30.', '..', 'a.b.c.d'),
    ),
    // Computed: a literal `__proto__:` would set the prototype, not name a parameter.
    ['__proto__']: text,
    constructor: text,
  }
}

/** A name/value pair: a known parameter with a value shaped for it, or free text for both. */
export function pair(site: string): fc.Arbitrary<[string, string]> {
  const known = parameters(site)
  const names = Object.getOwnPropertyNames(known)
  return fc.oneof(
    {
      weight: 5,
      arbitrary: fc.constantFrom(...names).chain((name) => known[name]!.map((v): [string, string] => [name, v])),
    },
    { weight: 1, arbitrary: fc.tuple(text, text) },
  )
}
