import fc from 'fast-check'
import { callbackUrl, emailAddress, errorCode, headerText, text } from './arbitraries'
import { percent, type Case } from './cases'
import { cookie } from './cookie-values'
import { runCase, type Fuzzing } from './run'
import { params, timeoutFor } from './settings'
import { headerOf } from './wire'

/**
 * The built-in pages answer any input safely and never reflect it: GET /signin, /signout, /error,
 * /verify-request with fuzzed `error`, `callbackUrl`, `csrf`, `provider`, `type` and `email`, any
 * Accept and Accept-Language (the service here has a second language, so the header is negotiated),
 * and any cookies. Beyond the oracle: the status the contract gives each `error` code, `nosniff` on
 * every answer, and the raw `error` value never in the page (each generated one carries a marker
 * the page must not show).
 */

const MARKER = 'fuzzmark'
const SHOWN_ON_SIGNIN = [
  ...['Signin', 'OAuthSignin', 'OAuthCallback', 'OAuthCreateAccount', 'EmailCreateAccount', 'Callback'],
  ...['OAuthAccountNotLinked', 'EmailSignin', 'CredentialsSignin', 'SessionRequired'],
]
const ERROR_STATUS = new Map([
  ['Configuration', 500],
  ['AccessDenied', 403],
  ['Verification', 403],
])

/** GET /error's status for a query, as the wire contract gives it (the first `error` counts). */
function errorPageStatus(query: string): number {
  const code = new URLSearchParams(query).get('error') ?? 'Default'
  return SHOWN_ON_SIGNIN.includes(code) ? 302 : (ERROR_STATUS.get(code) ?? 200)
}

const ACCEPT_LANGUAGE = [
  ...['fr', 'fr-CA;q=0.9, en;q=0.8', 'de', '*', 'en-US,en;q=0.5', 'FR', 'fr;q=0', 'fr;q=abc', 'fr;q=-1'],
  ...['__proto__', 'constructor', 'toString;q=1', 'x-'.repeat(400), ',,,,', ';q=1', 'fr,'.repeat(100)],
]

export function fuzzPages(use: () => Fuzzing): void {
  it(
    'answer each error code with its status, never show the raw error, and link only to the site',
    async () => {
      const { svc, material, quiet } = use()
      const site = svc.origin
      const parameter = fc.oneof(
        {
          weight: 3,
          arbitrary: fc.tuple(
            fc.constant('error'),
            fc.tuple(text, text).map(([a, b]) => a + MARKER + b),
          ),
        },
        { weight: 3, arbitrary: fc.tuple(fc.constant('error'), errorCode) },
        { weight: 3, arbitrary: fc.tuple(fc.constant('callbackUrl'), callbackUrl(site)) },
        { weight: 1, arbitrary: fc.tuple(fc.constantFrom('csrf', 'provider', 'type'), text) },
        { weight: 1, arbitrary: fc.tuple(fc.constant('email'), emailAddress) },
      )
      const page = fc.record({
        path: fc.constantFrom('signin', 'signin', 'signout', 'error', 'error', 'verify-request'),
        query: fc.array(parameter, { maxLength: 4 }),
        headers: fc.array(
          fc.oneof(
            fc.constantFrom(...ACCEPT_LANGUAGE).map((v): [string, string] => ['Accept-Language', v]),
            headerText.map((v): [string, string] => ['Accept-Language', v]),
            fc.constantFrom('application/json', 'text/html', '*/*').map((v): [string, string] => ['Accept', v]),
          ),
          { maxLength: 3 },
        ),
        cookies: fc.array(cookie, { maxLength: 2 }),
      })
      const expected = { site, authorizationEndpoints: [] }
      await fc.assert(
        fc.asyncProperty(page, async (c) => {
          const query = c.query.map(([name, value]) => `${name}=${percent(value)}`).join('&')
          const spec: Case = {
            method: 'GET',
            target: `/api/auth/${c.path}${query ? `?${query}` : ''}`,
            headers: [['Host', svc.host], ...c.headers],
            cookies: c.cookies,
            csrf: 'none',
            body: null,
          }
          const answer = await runCase(svc, spec, await material.for(spec), expected, quiet)
          // Node refuses a header with a control character (400) or headers over 16 KB (431) itself.
          if ([400, 431].includes(answer.status) && !headerOf(answer, 'x-content-type-options')) return
          expect(headerOf(answer, 'x-content-type-options')).toBe('nosniff')
          expect(answer.body).not.toContain(MARKER)
          if (c.path === 'error') expect(answer.status).toBe(errorPageStatus(query))
          else expect(answer.status).toBe(200)
        }),
        params(),
      )
    },
    timeoutFor(),
  )
}
