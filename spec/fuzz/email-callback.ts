import fc from 'fast-check'
import { callbackUrl, emailAddress, tokenLike } from './arbitraries'
import { mutate, simpleCase, toRequest, type Carrier, type CsrfMode, type Mutation } from './cases'
import { csrfPair, emailLink, freshAddress } from './material'
import { mutation } from './cookie-values'
import { exchange, type Fuzzing } from './run'
import { params, RUNS, timeoutFor } from './settings'
import { headersOf, type Answer } from './wire'

/**
 * GET|POST /callback/email gets a safe answer (./oracle) for any link values. Three cases in four
 * ask for a real link first (POST /signin/email with a fuzzed callbackUrl, the mail read off the
 * mail server), so that `token` and `email` are a live pair; the others send values shaped like one
 * (43 base64url characters, as issued, and a plain address), which pass every shape check and reach
 * the token store's lookup. Each case keeps or breaks the token and the address (one character
 * changed, or replaced), may override the callbackUrl, and confirms by GET (the confirm page) or
 * POST (with a valid CSRF pair, a wrong one or none). Only the live pair, POSTed with a valid CSRF
 * pair, may sign in, and does; posted again, the spent link must not.
 */

/** A link value kept as mailed, changed by one character, or replaced by another of its shape. */
type Choice = { keep: true } | { mutation: Mutation } | { value: string }

function choose(value: string, choice: Choice): string {
  if ('keep' in choice) return value
  return 'mutation' in choice ? mutate(value, choice.mutation) : choice.value
}

function choice(other: fc.Arbitrary<string>): fc.Arbitrary<Choice> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.constant({ keep: true as const }) },
    { weight: 2, arbitrary: mutation.map((m) => ({ mutation: m })) },
    { weight: 1, arbitrary: other.map((value) => ({ value })) },
  )
}

const setsSession = (answer: Answer) =>
  headersOf(answer, 'set-cookie').some((line) => /^auth\.session-token(?:\.\d+)?=[^;]/.test(line))

export function fuzzEmailCallback(use: () => Fuzzing): void {
  it(
    'signs in only with the live token and address, POSTed with a valid CSRF pair, once, to an on-site callbackUrl',
    async () => {
      const { svc, quiet } = use()
      const site = svc.origin
      const plan = fc.record({
        live: fc.oneof({ weight: 3, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
        linkCallbackUrl: callbackUrl(site),
        token: choice(tokenLike(43)),
        email: choice(emailAddress),
        callbackUrl: fc.option(callbackUrl(site), { nil: null }),
        confirm: fc.constantFrom<[string, Carrier]>(
          ['POST', 'form'],
          ['POST', 'form'],
          ['POST', 'json'],
          ['GET', 'query'],
        ),
        csrf: fc.constantFrom<CsrfMode>('pair', 'pair', 'pair', 'pair', 'pair', 'mismatch', 'cookie-only', 'none'),
      })
      let signedIn = 0
      await fc.assert(
        fc.asyncProperty(plan, async (c) => {
          const link = c.live
            ? await emailLink(svc, c.linkCallbackUrl)
            : new URL(`${site}/api/auth/callback/email?token=${'A'.repeat(43)}&email=${freshAddress()}`)
          // The link itself: the service's callback, carrying a callbackUrl that stays on the site.
          if (c.live) expect(new URL(link.searchParams.get('callbackUrl')!).origin).toBe(site)
          const token = link.searchParams.get('token')!
          const address = link.searchParams.get('email')!
          const values: Array<[string, string]> = [
            ['token', choose(token, c.token)],
            ['email', choose(address, c.email)],
            ['callbackUrl', c.callbackUrl ?? link.searchParams.get('callbackUrl') ?? '/'],
          ]
          const [method, carrier] = c.confirm
          const spec = simpleCase({
            host: svc.host,
            path: 'callback/email',
            carrier,
            method,
            params: values,
            cookies: [],
            csrf: c.csrf,
          })
          const intact = c.live && 'keep' in c.token && 'keep' in c.email && method === 'POST' && c.csrf === 'pair'
          const request = toRequest(spec, { csrf: await csrfPair(svc), session: [], flow: null })
          const expected = { site, authorizationEndpoints: [], signIn: intact }
          const first = await exchange(svc, request, expected, quiet)
          if (!intact) return
          expect({ status: first.status, session: setsSession(first) }).toEqual({ status: 302, session: true })
          signedIn++
          // The same POST again: the link was spent by the first one.
          await exchange(svc, request, { ...expected, signIn: false }, quiet)
        }),
        params(0.5),
      )
      if (RUNS >= 50) expect(signedIn).toBeGreaterThan(0)
    },
    timeoutFor(1.5),
  )
}
