import fc from 'fast-check'
import { CookieJar } from '../support/cookie-jar'
import { callbackUrl, pair, stateLike, tokenLike } from './arbitraries'
import { mutate, percent, simpleCase, toRequest, type Carrier, type CookieSpec, type Mutation } from './cases'
import { csrfPair, liveFlow, providerAnswer, type CookiePair } from './material'
import { mutation } from './cookie-values'
import { exchange, type Fuzzing } from './run'
import type { FuzzService } from './services'
import { params, RUNS, timeoutFor } from './settings'
import { headersOf } from './wire'

/**
 * GET|POST /callback/:provider for OAuth gets a safe answer (./oracle) and signs nobody in unless
 * the flow's answer is intact. Every case starts a real flow (POST /signin
 * with a valid CSRF pair and a fuzzed callbackUrl: its flow cookie and `state`), and one in three
 * has alice sign in at the real IdP for a real `code`. Then it breaks none, one or several of the
 * things that bind the answer to that flow and browser (state, flow cookie, CSRF cookie, code,
 * iss, an added error, the callback of the other provider) and sends the answer back by query,
 * form or JSON. Only an unbroken real answer may sign in (and must, or the cases would not be
 * reaching the code that matters); its redirect goes to the validated callbackUrl, on the site.
 */

const idpSession = new CookieJar()

/** Parameters of the provider's answer that bind it to the flow: noise never adds them. */
const BINDING_PARAMS = ['state', 'code', 'iss', 'error']
const BINDINGS = ['state', 'flow', 'csrf', 'code', 'iss', 'error', 'provider'] as const
type Binding = (typeof BINDINGS)[number]
/** How a binding is broken: changed by one character, left out, or replaced with another valid-looking one. */
type How = 'mutate' | 'drop' | 'swap'

/** The parameters and cookies of the answer, with `breaks` applied; also whether anything was really broken. */
async function breakAnswer(
  svc: FuzzService,
  c: { breaks: Binding[]; how: How; mutation: Mutation; swap: string; provider: string },
  answer: Map<string, string>,
  cookies: { csrf: CookiePair; flow: CookiePair },
): Promise<{ params: Map<string, string>; cookies: CookieSpec[]; broken: boolean }> {
  const params = new Map(answer)
  let { csrf, flow } = cookies
  let broken = false
  const change = (name: string, value: string | undefined) => {
    if (value === undefined) params.delete(name)
    else params.set(name, value)
    broken ||= value !== answer.get(name)
  }
  for (const binding of c.breaks) {
    const now = params.get(binding) ?? ''
    if (binding === 'state' || binding === 'code') {
      change(binding, c.how === 'drop' ? undefined : c.how === 'swap' ? c.swap : mutate(now, c.mutation))
    } else if (binding === 'iss') {
      // A plain OAuth 2 provider has no issuer to check `iss` against: breaking it breaks nothing.
      const changed = c.how === 'drop' ? undefined : c.how === 'swap' ? 'https://evil.example' : mutate(now, c.mutation)
      if (changed === undefined) params.delete('iss')
      else params.set('iss', changed)
      broken ||= c.provider === 'oidc'
    } else if (binding === 'error') {
      change('error', c.how === 'swap' ? c.swap : 'access_denied')
    } else if (binding === 'flow') {
      const value = mutate(flow.value, c.mutation)
      if (c.how === 'drop') flow = { name: 'auth.flow.gone', value: '' }
      else if (c.how === 'swap') flow = { name: `${flow.name}x`, value: flow.value }
      else flow = { ...flow, value }
      broken ||= c.how !== 'mutate' || value !== cookies.flow.value
    } else if (binding === 'csrf') {
      // Swapped: another valid CSRF cookie of this service, not the one the flow was bound to.
      const other = c.how === 'swap' ? (await csrfPair(svc))!.cookie : null
      csrf = other ?? { ...csrf, value: c.how === 'drop' ? '' : mutate(csrf.value, c.mutation) }
      broken = true
    } else broken = true // 'provider': the answer goes to the other provider's callback
  }
  const jar: CookieSpec[] = [csrf, flow]
    .filter(({ value }) => value !== '')
    .map(({ name, value }) => ({ kind: 'pair', name, value }))
  return { params, cookies: jar, broken }
}

export function fuzzOAuthCallback(use: () => Fuzzing): void {
  it(
    'signs in only for an unbroken answer, to an on-site callbackUrl; anything else ends on an error page',
    async () => {
      const { svc, quiet } = use()
      const site = svc.origin
      const plan = fc.record({
        provider: fc.constantFrom('oidc', 'plain'),
        callbackUrl: callbackUrl(site),
        real: fc.oneof({ weight: 2, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
        breaks: fc.oneof(
          { weight: 2, arbitrary: fc.constant<Binding[]>([]) },
          { weight: 3, arbitrary: fc.constantFrom(...BINDINGS).map((b) => [b]) },
          { weight: 1, arbitrary: fc.subarray([...BINDINGS]) },
        ),
        how: fc.constantFrom<How>('mutate', 'mutate', 'drop', 'swap'),
        mutation,
        swap: fc.oneof(stateLike, tokenLike(43)),
        fakeCode: tokenLike(43),
        carrier: fc.constantFrom<Carrier>('query', 'query', 'form', 'json'),
        // Noise beside the answer: never a parameter that binds it (those are the breaks above),
        // and short enough that an unbroken answer stays under Node's 16 KB header limit (431).
        extra: fc.array(
          pair(site).filter(([name, value]) => !BINDING_PARAMS.includes(name) && percent(name + value).length < 1000),
          { maxLength: 3 },
        ),
      })
      let signedIn = 0
      await fc.assert(
        fc.asyncProperty(plan, async (c) => {
          const flow = await liveFlow(svc, c.provider, c.callbackUrl)
          const answer = c.real
            ? new Map((await providerAnswer(flow, idpSession)).searchParams)
            : new Map([
                ['code', c.fakeCode],
                ['state', flow.authorization.searchParams.get('state')!],
                ['iss', svc.idp.issuer],
              ])
          const broken = await breakAnswer(svc, c, answer, { csrf: flow.csrf.cookie, flow: flow.flow })
          const intact = c.real && !broken.broken
          const provider = c.breaks.includes('provider') ? (c.provider === 'oidc' ? 'plain' : 'oidc') : c.provider
          const spec = simpleCase({
            host: svc.host,
            path: `callback/${provider}`,
            carrier: c.carrier,
            params: [...broken.params, ...c.extra],
            cookies: broken.cookies,
            csrf: 'none',
          })
          const request = toRequest(spec, { csrf: null, session: [], flow: null })
          const expected = { site, authorizationEndpoints: [], signIn: intact }
          const res = await exchange(svc, request, expected, quiet)
          if (intact) {
            const session = headersOf(res, 'set-cookie').some((line) => line.startsWith('auth.session-token='))
            expect({ status: res.status, session }).toEqual({ status: 302, session: true })
            signedIn++
          }
        }),
        params(0.5),
      )
      if (RUNS >= 50) expect(signedIn).toBeGreaterThan(0)
    },
    timeoutFor(1.5),
  )
}
