import fc from 'fast-check'
import { pair, parameters, text } from './arbitraries'
import { parseJson } from './oracle'
import { exchange, type Fuzzing } from './run'
import { params, timeoutFor } from './settings'
import { headerOf, send } from './wire'

/**
 * POST /backchannel-logout/:provider, which anyone can post to: whatever the provider id, method,
 * content type and body (logout tokens shaped like a compact JWS, unsigned, made up, or free
 * text), the answer is the OAuth 400 (`invalid_request`, `no-store`) and the live session still
 * opens. No case here holds a token the provider signed, so none may end anything.
 */
export function fuzzBackchannelLogout(use: () => Fuzzing, share = 1): void {
  it(
    'answers any made-up logout request with the OAuth 400 and ends no session',
    async () => {
      const { svc, material, quiet } = use()
      const expected = { site: svc.origin, authorizationEndpoints: svc.authorizationEndpoints }
      const token = parameters(svc.origin).logout_token!
      const cases = fc.record({
        provider: fc.constantFrom('oidc', 'plain', 'offline', 'email', 'nope', '__proto__', 'constructor'),
        method: fc.constantFrom('POST', 'POST', 'POST', 'GET'),
        type: fc.constantFrom(
          'application/x-www-form-urlencoded',
          'application/x-www-form-urlencoded',
          'APPLICATION/X-WWW-FORM-URLENCODED; charset=utf-8',
          'application/json',
          'text/plain',
          'multipart/form-data; boundary=x',
          '',
        ),
        fields: fc.array(
          fc.oneof(
            { weight: 3, arbitrary: token.map((value): [string, string] => ['logout_token', value]) },
            { weight: 1, arbitrary: pair(svc.origin) },
          ),
          { maxLength: 4 },
        ),
        raw: fc.option(text, { freq: 4, nil: null }),
      })
      await fc.assert(
        fc.asyncProperty(cases, async (c) => {
          const body = Buffer.from(c.raw ?? new URLSearchParams(c.fields).toString())
          const headers: Array<[string, string]> = [['Host', svc.host]]
          if (c.type !== '') headers.push(['Content-Type', c.type])
          const answer = await exchange(
            svc,
            {
              method: c.method,
              target: `/api/auth/backchannel-logout/${c.provider}`,
              headers,
              ...(c.method === 'POST' ? { body } : {}),
            },
            expected,
            quiet,
          )
          expect(answer.status).toBe(400)
          expect(headerOf(answer, 'cache-control')).toMatch(/no-store/)
          expect(parseJson(answer.body)?.error).toBe('invalid_request')
        }),
        params(share),
      )
      const { session } = await material.for({
        method: 'GET',
        target: '/',
        headers: [],
        cookies: [],
        csrf: 'none',
        body: null,
      })
      const answer = await send(svc.port, {
        method: 'GET',
        target: '/api/auth/session',
        headers: [
          ['Host', svc.host],
          ['Cookie', session.map(({ name, value }) => `${name}=${value}`).join('; ')],
        ],
      })
      expect(parseJson(answer.body)?.user).toBeDefined()
    },
    timeoutFor(share),
  )
}
