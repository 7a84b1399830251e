import { domainToASCII } from 'node:url'
import fc from 'fast-check'
import { callbackUrl, emailAddress, headerText, jsonValue, pair } from './arbitraries'
import type { BodySpec, Case } from './cases'
import { runCase, type Fuzzing } from './run'
import { params, RUNS, timeoutFor } from './settings'
import { headerOf } from './wire'

/**
 * POST /signin/:provider gets a safe answer (./oracle) for any body and query. Nine cases in ten
 * carry a valid CSRF pair: random tokens never get past the router's check, and the handlers (OAuth
 * start with its extra authorization parameters, discovery at a dead issuer, the e-mail address
 * rules, the mailer) are where the fuzzed callbackUrl, email and query actually land.
 */

/** Mostly the configured ones (the e-mail provider has the most input to check); a few near misses. */
const PROVIDERS = [
  ...['oidc', 'oidc', 'oidc', 'plain', 'plain', 'offline', 'email', 'email', 'email', 'email', 'email', 'em%61il'],
  ...['nope', 'OIDC', 'Email', '__proto__'],
]

/**
 * What a mail server may be asked to deliver to: one plain mailbox, its domain lower-case ASCII.
 * Anything else (a list, a display name, a header) would mean a fuzzed address got through.
 * (smtp-server reports IDN domains decoded to Unicode: they are encoded again before the check.)
 */
const PLAIN_MAILBOX = /^[\w#$&'*+/=?^`{|}~.-]{1,64}@[a-z0-9-]+(?:\.[a-z0-9-]+)+$/
const plainMailbox = (address: string) => {
  const at = address.lastIndexOf('@')
  return PLAIN_MAILBOX.test(`${address.slice(0, at)}@${domainToASCII(address.slice(at + 1))}`)
}

export function fuzzSignIn(use: () => Fuzzing): void {
  it(
    'starts a flow at the IdP (which sends the user back to the site), sends a link, or refuses, and no more',
    async () => {
      const { svc, material, quiet } = use()
      const site = svc.origin
      const field = fc.oneof(
        { weight: 3, arbitrary: callbackUrl(site).map((v): [string, unknown] => ['callbackUrl', v]) },
        { weight: 3, arbitrary: emailAddress.map((v): [string, unknown] => ['email', v]) },
        { weight: 1, arbitrary: fc.constantFrom('true', 'false').map((v): [string, unknown] => ['json', v]) },
        { weight: 1, arbitrary: jsonValue.map((v): [string, unknown] => ['email', v]) },
        { weight: 1, arbitrary: pair(site) },
      )
      const signIn = fc.record({
        provider: fc.constantFrom(...PROVIDERS),
        // The client's third signIn() argument: extra authorization parameters, protected ones included.
        query: fc.array(pair(site), { maxLength: 4 }),
        fields: fc.array(field, { maxLength: 5 }),
        kind: fc.constantFrom<BodySpec['kind']>('form', 'form', 'json'),
        csrf: fc.constantFrom<Case['csrf']>(
          'pair',
          'pair',
          'pair',
          'pair',
          'pair',
          'pair',
          'pair',
          'pair',
          'pair',
          'mismatch',
        ),
        headers: fc.array(
          fc.oneof(
            fc.constant<[string, string]>(['X-Auth-Return-Redirect', '1']),
            fc.constant<[string, string]>(['Accept', 'application/json']),
            headerText.map((v): [string, string] => ['X-Forwarded-Host', v]),
          ),
          { maxLength: 2 },
        ),
      })
      const reached = { idp: 0, verifyRequest: 0 }
      const asked = svc.smtp!.recipientsAsked().length
      const expected = { site, authorizationEndpoints: svc.authorizationEndpoints }
      await fc.assert(
        fc.asyncProperty(signIn, async (c) => {
          const search = new URLSearchParams(c.query).toString()
          const spec: Case = {
            method: 'POST',
            target: `/api/auth/signin/${c.provider}${search ? `?${search}` : ''}`,
            headers: [['Host', svc.host], ...c.headers],
            cookies: [],
            csrf: c.csrf,
            body: {
              kind: c.kind,
              fields: c.fields.map(([name, value]) => [name, typeof value === 'string' ? value : { json: value }]),
              raw: '',
              contentType: null,
              pad: 0,
              lengthDelta: 0,
            },
          }
          const answer = await runCase(svc, spec, await material.for(spec), expected, quiet)
          const location = headerOf(answer, 'location') ?? answer.body
          if (svc.authorizationEndpoints.some((endpoint) => location.includes(endpoint))) reached.idp++
          if (location.includes('/verify-request')) reached.verifyRequest++
        }),
        params(),
      )
      const recipients = svc.smtp!.recipientsAsked().slice(asked)
      expect(recipients.filter((address) => !plainMailbox(address))).toEqual([])
      // The cases got past the CSRF check into the handlers, not just to `?csrf=true`.
      if (RUNS >= 50) expect(reached.idp * reached.verifyRequest).toBeGreaterThan(0)
    },
    timeoutFor(),
  )
}
