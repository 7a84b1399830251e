import fc from 'fast-check'
import { VECTORS } from '../support/sessions'
import { b64url, headerText } from './arbitraries'
import type { CookieSpec, Mutation, SessionSource, Value } from './cases'

/**
 * Cookies and the one-byte changes made to real values. A cookie holds free text, a sealed-looking
 * value under no key of ours, a real value of another purpose (the CSRF cookie's value in the
 * session cookie, a flow cookie's in the CSRF cookie), or a session token, whole or in chunks.
 */

/**
 * One character replaced, removed, inserted or appended, or the rest cut: mostly with a base64url
 * character, so that the value keeps its shape and reaches the MAC or the decryption. Or a twin:
 * the same bytes spelled another way, which must be refused like any other change.
 */
export const mutation: fc.Arbitrary<Mutation> = fc.record({
  at: fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
  op: fc.constantFrom('replace', 'replace', 'replace', 'delete', 'insert', 'truncate', 'append', 'respell', 'respell'),
  char: fc.oneof(
    { weight: 6, arbitrary: b64url(1) },
    { weight: 1, arbitrary: fc.constantFrom('.', '%', ' ', 'é', '=', '|', ';', ',', '"', '\\') },
  ),
})

/** A real value of one of the service's purposes, maybe one character off. */
export const ref: fc.Arbitrary<Value> = fc.record({
  ref: fc.constantFrom('csrfCookie', 'csrfToken', 'session', 'flow'),
  mutation: fc.option(mutation, { freq: 2, nil: null }),
})

const JWE_HEADER = 'eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIn0'
/** Sealed-looking values: the right header and part lengths under no key of ours, JWTs of other kinds, and ours. */
const foreign: fc.Arbitrary<string> = fc.oneof(
  fc.tuple(b64url(16), b64url(0, 400), b64url(22)).map(([iv, body, tag]) => `${JWE_HEADER}..${iv}.${body}.${tag}`),
  fc.tuple(b64url(43), b64url(43)).map(([token, mac]) => `${token}|${mac}`),
  fc.tuple(b64url(43), b64url(43)).map(([token, mac]) => `${token}%7C${mac}`),
  fc.constantFrom(
    'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJnaXRodWI6MSJ9.7pGx0iKbwYOxWr6XGyHhSGVbLZ9hS2bn0eO3Eq5dTqU',
    'eyJhbGciOiJub25lIn0.eyJ1c2VyIjp7Im5hbWUiOiJBZGEifX0.',
    `${JWE_HEADER}....`,
    VECTORS.otherSecret,
    VECTORS.expired,
    VECTORS.wrongUser,
    VECTORS.noAuthTime,
  ),
)

/** Mostly the live session (whole or chunked, maybe one byte off); known-answer vectors; other secrets. */
const SESSION_SOURCES: SessionSource[] = ['live', 'live', 'live', 'ada', 'large', 'otherSecret', 'expired', 'wrongUser']
const COOKIE_NAMES = [
  ...['auth.session-token', 'auth.session-token.0', 'auth.session-token.1', 'auth.session-token.2'],
  ...['auth.session-token.3', 'auth.csrf-token', '<flow>', 'auth.flow.', 'auth.flow.x.y', '__Host-auth.session-token'],
  ...['__Host-auth.csrf-token', 'AUTH.SESSION-TOKEN', 'auth.callback-url', 'next-auth.session-token', '__proto__'],
]

export const cookie: fc.Arbitrary<CookieSpec> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('pair' as const),
      name: fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...COOKIE_NAMES) }, { weight: 1, arbitrary: headerText }),
      value: fc.oneof<fc.Arbitrary<Value>[]>(headerText, foreign, ref),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('session' as const),
      source: fc.constantFrom<SessionSource>(...SESSION_SOURCES),
      split: fc.oneof(
        { weight: 4, arbitrary: fc.constant(0) },
        { weight: 1, arbitrary: fc.integer({ min: 1, max: 3800 }) },
      ),
      mutation: fc.option(mutation, { freq: 2, nil: null }),
    }),
  },
)
