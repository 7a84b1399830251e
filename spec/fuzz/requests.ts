import fc from 'fast-check'
import { headerText, jsonValue, pair } from './arbitraries'
import { percent, type BodySpec, type Case, type CsrfMode } from './cases'
import { cookie, ref } from './cookie-values'

/**
 * Arbitraries for whole requests, from the request line down to the body's bytes. Built per site:
 * callbackUrl values and near misses depend on its origin.
 */

export const METHODS = ['GET', 'POST', 'HEAD', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'TRACE', 'PROPFIND']
export const method = fc.oneof(
  { weight: 10, arbitrary: fc.constantFrom('GET', 'POST') },
  { weight: 3, arbitrary: fc.constantFrom(...METHODS) },
  { weight: 1, arbitrary: fc.constantFrom('get', 'Post', 'G3T', 'POST\t', 'M-SEARCH', 'X'.repeat(200)) },
)

/** Paths under the base path, each with the methods it serves (others get 405). */
export const ROUTES: ReadonlyArray<readonly [string, readonly string[]]> = [
  ...['csrf', 'providers', 'signin', 'verify-request', 'error', 'assets/style.css'].map((r) => [r, ['GET']] as const),
  ...['signout-callback/oidc', 'signout-callback/nope'].map((r) => [r, ['GET']] as const),
  ...['session', 'signout'].map((r) => [r, ['GET', 'POST']] as const),
  ...['_log', 'signin/oidc', 'signin/plain', 'signin/offline', 'signin/email'].map((r) => [r, ['POST']] as const),
  ...['callback/oidc', 'callback/plain', 'callback/offline', 'callback/email'].map(
    (r) => [r, ['GET', 'POST']] as const,
  ),
  // A provider's server posts its logout token here; a GET is answered with the same 400.
  ...['backchannel-logout/oidc', 'backchannel-logout/plain', 'backchannel-logout/offline'].map(
    (r) => [r, ['GET', 'POST']] as const,
  ),
]
/** Near misses: unknown providers (one named like a prototype member), extra or missing segments. */
const NEAR_MISSES: ReadonlyArray<readonly [string, readonly string[]]> = [
  ...['signin/nope', 'signin/constructor', 'callback/nope', 'callback/__proto__'].map((r) => [r, ['POST']] as const),
  ...['backchannel-logout/email', 'backchannel-logout/__proto__', 'backchannel-logout'].map(
    (r) => [r, ['POST']] as const,
  ),
  ...['', 'signin/oidc/x', 'callback', 'assets', 'assets/../csrf'].map((r) => [r, ['GET']] as const),
]
const route = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...ROUTES) },
  { weight: 1, arbitrary: fc.constantFrom(...NEAR_MISSES) },
)

/** A route and a method: mostly one it serves (so that the request reaches its handler), else any. */
const routeAndMethod = fc
  .tuple(route, fc.nat(1), fc.oneof({ weight: 3, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: method }))
  .map(([[route, own], pick, other]) => ({ route, method: other ?? own[pick % own.length]! }))

const PREFIXES = [
  ...['/API/AUTH', '/api//auth', '//api/auth', '/api/./auth', '/api/x/../auth', '/api%2Fauth', '/api/%61uth', ''],
  ...['/other', 'http://evil.example/api/auth', 'HTTP://LOCALHOST/api/auth', '/api/auth%2F', '/api/auth/.'],
  ...['/api/auth/..', '/api/auth/%2e%2e'],
]
/** Mostly the base path itself: a request that misses it only reaches the host app's 404. */
const prefix = fc.oneof(
  { weight: 6, arbitrary: fc.constant('/api/auth') },
  { weight: 1, arbitrary: fc.constantFrom(...PREFIXES) },
)

/** A route made strange: dot segments, encoded slashes and letters, case, parameters, Unicode, length. */
const decoration: fc.Arbitrary<(route: string) => string> = fc.oneof(
  { weight: 12, arbitrary: fc.constant((route: string) => route) },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      (r: string) => `${r}/`,
      (r: string) => `${r}//`,
      (r: string) => `./${r}`,
      (r: string) => `x/../${r}`,
      (r: string) => `%2e/${r}`,
      (r: string) => r.replace('/', '%2F'),
      (r: string) => r.replace('/', '%2f'),
      (r: string) => r.replace('/', '\\'),
      (r: string) => r.replace('/', '//'),
      (r: string) => r.toUpperCase(),
      (r: string) => `${r};jsessionid=1`,
      (r: string) => `${r}%00`,
      (r: string) => `${r}%C0%AF`,
      (r: string) => `${r}é😀`,
      (r: string) => `${r}\u0000`,
      (r: string) => r.replace(/[a-z]/, (c) => `%${c.charCodeAt(0).toString(16)}`),
    ),
  },
  {
    // Up to and past Node's 16 KB header limit (431), and in between.
    weight: 1,
    arbitrary: fc.tuple(fc.constantFrom('/', 'a', '%2F', './', '../'), fc.integer({ min: 1000, max: 17_000 })).map(
      ([unit, length]) =>
        (r: string) =>
          `${r}/${unit.repeat(Math.ceil(length / unit.length))}`,
    ),
  },
)

/** A query string: known parameters with shaped values, encoded properly, raw, or broken. */
function query(site: string): fc.Arbitrary<string> {
  const encoded = fc
    .tuple(
      fc.array(pair(site), { maxLength: 6 }),
      fc.constantFrom('percent', 'percent', 'percent', 'percent', 'percent', 'percent', 'percent', 'raw'),
    )
    .map(([pairs, how]) =>
      pairs
        .map(([name, value]) => (how === 'raw' ? `${name}=${value}` : `${percent(name)}=${percent(value)}`))
        .join('&'),
    )
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant('') },
    { weight: 8, arbitrary: encoded.map((q) => (q ? `?${q}` : '')) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(encoded, fc.constantFrom('&&', '=', '&=&', '?', '%', '%%', '#frag', ';a=b', '&error=Configuration'))
        .map(([q, junk]) => `?${q}${junk}`),
    },
  )
}

/** The request line's method and target. */
export function requestLine(site: string): fc.Arbitrary<{ method: string; target: string }> {
  return fc
    .tuple(prefix, routeAndMethod, decoration, query(site))
    .map(([base, { route, method }, decorate, search]) => ({ method, target: `${base}/${decorate(route)}${search}` }))
}

/**
 * Headers beside Host and Cookie: Accept and the JSON-mode header; Origin and Sec-Fetch-Site (a
 * cross-site POST is refused before its handler); forwarded headers (ignored without trustHost);
 * and others with any text.
 */
export function otherHeaders(site: string): fc.Arbitrary<Array<[string, string]>> {
  const header = (name: string, values: string[]) =>
    fc.constantFrom(...values).map((value): [string, string] => [name, value])
  return fc.array(
    fc.oneof(
      header('Accept', ['application/json', 'text/html', '*/*', 'application/json, text/html', 'text/html;q=0,*/json']),
      header('X-Auth-Return-Redirect', ['1', '0', 'true', '']),
      header('Origin', [site, 'null', 'https://evil.example', site.toUpperCase(), `${site}/`]),
      header('Sec-Fetch-Site', ['same-origin', 'same-site', 'cross-site', 'none', 'CROSS-SITE']),
      header('X-Forwarded-Host', ['evil.example', 'evil.example, localhost', 'localhost:1', '[::1]']),
      header('X-Forwarded-Proto', ['https', 'http', 'javascript', 'https, http']),
      header('X-Forwarded-For', ['1.2.3.4', '::1', 'evil', '1.2.3.4, 5.6.7.8']),
      header('Forwarded', ['for=1.2.3.4;host=evil.example;proto=https']),
      fc
        .constantFrom('Origin', 'Referer', 'If-None-Match', 'Accept-Language', 'Range', 'User-Agent')
        .chain((name) => headerText.map((value): [string, string] => [name, value])),
    ),
    { maxLength: 4 },
  )
}

/** Three in seven with a valid pair: enough POSTs reach their handlers, enough test the check itself. */
export const csrfMode = fc.constantFrom<CsrfMode>(
  'pair',
  'pair',
  'pair',
  'mismatch',
  'cookie-only',
  'token-only',
  'none',
)

/** Mostly the two the service reads; the rest must be refused (415) or fail to parse (400). */
const BODY_KINDS: Array<BodySpec['kind']> = [
  ...(['form', 'form', 'form', 'json', 'json', 'raw', 'multipart', 'latin1-form', 'utf16-json'] as const),
  'chunked-form',
]

const CONTENT_TYPES = [
  ...['text/plain', 'application/xml', '', 'APPLICATION/JSON', 'application/json;', 'application/jsonp'],
  ...['application/x-www-form-urlencoded, application/json', 'application/json; charset=utf-32', '*/*'],
  ...['application/x-www-form-urlencoded;;;', 'multipart/form-data', 'application/json\u0000'],
]
const RAW_BODIES = [
  ...['[1,2]', '"text"', 'null', '42', '{"a":', '{', '', '\ufeff{}', '{"csrfToken":"x","csrfToken":null}'],
  ...['{"__proto__":{"polluted":1}}', '{"constructor":{"prototype":{"x":1}}}', '['.repeat(50_000), '{"a":1}{"b":2}'],
]

export function body(site: string): fc.Arbitrary<BodySpec> {
  const field = fc.oneof(
    { weight: 6, arbitrary: pair(site) },
    {
      weight: 1,
      arbitrary: fc.tuple(
        fc.constantFrom('csrfToken', 'callbackUrl', 'email', 'token', 'data', 'json', 'everywhere'),
        jsonValue.map((json) => ({ json })),
      ),
    },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom('csrfToken', 'token', 'state', 'email'), ref) },
  )
  return fc.record({
    kind: fc.constantFrom<BodySpec['kind']>(...BODY_KINDS),
    fields: fc.array(field as fc.Arbitrary<BodySpec['fields'][number]>, { maxLength: 6 }),
    raw: fc.oneof(fc.constantFrom(...RAW_BODIES), fc.uint8Array({ maxLength: 3000 })),
    contentType: fc.oneof(
      { weight: 7, arbitrary: fc.constant(null) },
      { weight: 1, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
    ),
    pad: fc.oneof(
      { weight: 12, arbitrary: fc.constant(0) },
      { weight: 1, arbitrary: fc.integer({ min: 1000, max: 70_000 }) },
    ),
    lengthDelta: fc.oneof(
      { weight: 40, arbitrary: fc.constant(0) },
      { weight: 1, arbitrary: fc.constantFrom(-1, 1, 7, -7) },
    ),
  })
}

/** Any request at all to the site, with `hosts` for its Host and forwarded headers. */
export function anyRequest(site: string, hosts: fc.Arbitrary<Array<[string, string]>>): fc.Arbitrary<Case> {
  return fc
    .record({
      line: requestLine(site),
      headers: fc.tuple(hosts, otherHeaders(site)).map(([h, others]) => [...h, ...others]),
      cookies: fc.array(cookie, { maxLength: 4 }),
      csrf: csrfMode,
      body: fc.option(body(site), { freq: 3, nil: null }),
    })
    .map(({ line, ...rest }) => ({ ...rest, ...line }))
}
