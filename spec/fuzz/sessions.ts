import fc from 'fast-check'
import { DAY, SIGNED_IN_AT } from '../support/sessions'
import { callbackUrl, everywhere, jsonValue } from './arbitraries'
import {
  asRead,
  cookiePairs,
  sessionToken,
  type Case,
  type CookieSpec,
  type Material,
  type SessionSource,
} from './cases'
import { parseJson } from './oracle'
import { cookie, mutation } from './cookie-values'
import { csrfMode } from './requests'
import { runCase, type Fuzzing } from './run'
import { params, timeoutFor } from './settings'

/**
 * Any input to the routes that read a session (GET and POST /session, POST /signout) gets a safe
 * answer (./oracle). The session
 * cookie is, most often, a real one: the live session of an e-mail sign-in or a known-answer
 * vector, sent whole or split into `.0`/`.1`/`.2` chunks, and in one case in two changed by one
 * character (random bytes never get past the JWE's shape check, a one-byte change reaches AES-GCM
 * and the claim checks). Or it holds another purpose's value (the CSRF cookie, the CSRF token, a
 * flow cookie: the same JWE format under another key). POSTs mostly carry a valid CSRF pair and a
 * fuzzed `data`, `everywhere` or `callbackUrl`. Beyond the oracle: GET /session answers `{}` for
 * every cookie that must not open, and the user for every one that must.
 */

/**
 * Until when each token opens (seconds): the live session for the whole run; the vectors sealed
 * under our secret with an auth_time until their `exp` (../support/session-vectors). The fuzz runs
 * on the real clock, so before 2027 even `expired` (issued then) opens; the others never do.
 */
const OPENS_UNTIL: Partial<Record<SessionSource, number>> = {
  live: Infinity,
  ada: SIGNED_IN_AT + 30 * DAY,
  adaWithToken: SIGNED_IN_AT + 30 * DAY,
  large: SIGNED_IN_AT + 30 * DAY,
  oneHour: SIGNED_IN_AT + 3600,
  expired: SIGNED_IN_AT + 30,
}
const MAX_CHUNKS = 3
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f]|\\u00[01]/
const SOURCES: SessionSource[] = [
  ...(['live', 'live', 'live', 'ada', 'adaWithToken', 'oneHour', 'large'] as const),
  ...(['otherSecret', 'expired', 'wrongUser', 'noAuthTime'] as const),
]

const sessionCookie: fc.Arbitrary<CookieSpec> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('session' as const),
      source: fc.constantFrom<SessionSource>(...SOURCES),
      split: fc.oneof(
        { weight: 3, arbitrary: fc.constant(0) },
        { weight: 1, arbitrary: fc.integer({ min: 50, max: 3800 }) },
      ),
      mutation: fc.option(mutation, { nil: null }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('pair' as const),
      name: fc.constantFrom('auth.session-token', 'auth.session-token.0'),
      value: fc.record({ ref: fc.constantFrom('csrfCookie', 'csrfToken', 'flow'), mutation: fc.constant(null) }),
    }),
  },
)

/**
 * Whether the session cookie must open: a valid token that reaches the service unchanged (or
 * changed only in what cookie parsing undoes), in at most three non-empty chunks. The same bytes
 * spelled another way are another string, and must not open.
 */
function mustOpen(spec: CookieSpec, live: Material): boolean {
  if (spec.kind !== 'session' || !((OPENS_UNTIL[spec.source] ?? 0) > Date.now() / 1000)) return false
  const read = cookiePairs(spec, live).map(({ value }) => asRead(value))
  if (read.length > MAX_CHUNKS || read.some((value) => value === '')) return false
  return sessionToken({ ...spec, mutation: null }, live) === read.join('')
}

export function fuzzSessions(use: () => Fuzzing): void {
  it(
    'answer {} to every session cookie that does not open and the session to every one that does, and set none',
    async () => {
      const { svc, material, quiet } = use()
      const site = svc.origin
      const plan = fc.record({
        route: fc.constantFrom(['GET', 'session'], ['GET', 'session'], ['POST', 'session'], ['POST', 'signout']),
        session: sessionCookie,
        // Other cookies beside it: never under a session cookie's own name (that would be another
        // session), nor with a control character (Node would refuse the request before the service).
        extra: fc.array(
          cookie.filter(
            (c) => c.kind === 'pair' && !c.name.includes('session-token') && !CONTROL.test(JSON.stringify(c)),
          ),
          { maxLength: 2 },
        ),
        csrf: csrfMode,
        fields: fc.array(
          fc.oneof(
            jsonValue.map((v): [string, unknown] => ['data', v]),
            everywhere.map((v): [string, unknown] => ['everywhere', v]),
            callbackUrl(site).map((v): [string, unknown] => ['callbackUrl', v]),
            fc.constant<[string, unknown]>(['json', 'true']),
          ),
          { maxLength: 3 },
        ),
        kind: fc.constantFrom('form' as const, 'json' as const),
      })
      const expected = { site, authorizationEndpoints: [] }
      await fc.assert(
        fc.asyncProperty(plan, async (c) => {
          const [method, path] = c.route as [string, string]
          const spec: Case = {
            method,
            target: `/api/auth/${path}`,
            headers: [['Host', svc.host]],
            cookies: [c.session, ...c.extra],
            csrf: c.csrf,
            body:
              method === 'GET'
                ? null
                : {
                    kind: c.kind,
                    fields: c.fields.map(([name, v]) => [name, typeof v === 'string' ? v : { json: v }]),
                    raw: '',
                    contentType: null,
                    pad: 0,
                    lengthDelta: 0,
                  },
          }
          const live = await material.for(spec)
          const answer = await runCase(svc, spec, live, expected, quiet)
          // Node answers 431 itself when the cookies pass its 16 KB header limit.
          if (method !== 'GET' || answer.status === 431) return
          const body = parseJson(answer.body)
          if (mustOpen(c.session, live)) expect(body?.user).toBeDefined()
          else expect({ status: answer.status, body }).toEqual({ status: 200, body: {} })
        }),
        params(),
      )
    },
    timeoutFor(),
  )

  it(
    'answer {} to every other spelling of a session that opens, whole or chunked, and never 5xx',
    async () => {
      const { svc, material, quiet } = use()
      const twin: fc.Arbitrary<CookieSpec> = fc.record({
        kind: fc.constant('session' as const),
        source: fc.constantFrom<SessionSource>('live', 'live', 'ada', 'large'),
        split: fc.oneof(
          { weight: 3, arbitrary: fc.constant(0) },
          { weight: 1, arbitrary: fc.integer({ min: 50, max: 3800 }) },
        ),
        mutation: fc.record({
          at: fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
          op: fc.constant('respell' as const),
          char: fc.string({ minLength: 1, maxLength: 1 }),
        }),
      })
      const expected = { site: svc.origin, authorizationEndpoints: [] }
      await fc.assert(
        fc.asyncProperty(twin, async (session) => {
          const spec: Case = {
            method: 'GET',
            target: '/api/auth/session',
            headers: [['Host', svc.host]],
            cookies: [session],
            csrf: 'none',
            body: null,
          }
          const live = await material.for(spec)
          const answer = await runCase(svc, spec, live, expected, quiet)
          expect({ status: answer.status, body: parseJson(answer.body) }).toEqual({ status: 200, body: {} })
        }),
        params(0.5),
      )
    },
    timeoutFor(0.5),
  )
}
