import fc from 'fast-check'
import { headerText } from './arbitraries'
import { anyRequest } from './requests'
import { runCase, type Fuzzing } from './run'
import { params, timeoutFor } from './settings'

/**
 * Any request at all gets a safe answer from the service with `url` set. Every method, path (dot
 * segments, encoded slashes, Unicode, past Node's header limit), query, header, cookie and body the
 * generators make; most POSTs carry a real CSRF pair, so that they reach their handlers. The
 * answer: no 5xx but the Configuration page, no stack trace, no session cookie, no redirect off the
 * site (the provider's authorization endpoint aside), and the process still serves. `share` scales
 * the runs (the Express 4 pass does fewer).
 */
export function fuzzAnyRequest(use: () => Fuzzing, share = 1): void {
  it(
    'gets an answer the contract allows, sets no session, and sends nobody off the site',
    async () => {
      const { svc, material, quiet } = use()
      // With `url` set, Host and X-Forwarded-* are ignored: a forged one must change no URL.
      const hosts = fc.oneof(
        { weight: 8, arbitrary: fc.constant<Array<[string, string]>>([['Host', svc.host]]) },
        { weight: 1, arbitrary: headerText.map((host): Array<[string, string]> => [['Host', host]]) },
        {
          weight: 1,
          arbitrary: fc.constant<Array<[string, string]>>([
            ['Host', 'evil.example'],
            ['Host', svc.host],
          ]),
        },
      )
      const expected = { site: svc.origin, authorizationEndpoints: svc.authorizationEndpoints }
      await fc.assert(
        fc.asyncProperty(anyRequest(svc.origin, hosts), async (spec) => {
          await runCase(svc, spec, await material.for(spec), expected, quiet)
        }),
        params(share),
      )
    },
    timeoutFor(share),
  )
}
