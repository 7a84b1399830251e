import { sessionCookies, VECTORS } from '../support/sessions'
import { toRequest, type Case, type Material } from './cases'
import { csrfPair, liveFlow, liveSession, type CookiePair } from './material'
import { expectAlive, expectSafeAnswer, watchProcess, type Expected } from './oracle'
import type { FuzzService } from './services'
import { send, type Answer, type RawRequest } from './wire'

const HOST_HEADERS = /^(?:host|x-forwarded-host|x-forwarded-proto)$/i

/**
 * The material a case refers to. The CSRF pair is fetched for each case, with the case's own Host
 * headers (with trustHost they decide the cookie's name), since a valid pair is what gets a POST
 * past the router to its handler. The live session and flow cookie are kept between cases: they
 * cost a whole sign-in each.
 */
export class LiveMaterial {
  private session: CookiePair[] = []
  private flow: CookiePair | null = null
  private madeAt = 0
  private spoiled = false

  constructor(private readonly svc: FuzzService) {}

  async for(spec: Case): Promise<Material> {
    // A sign-out (everywhere) may end the live session: the case after one gets a new session. A
    // flow lasts 15 minutes.
    if (this.session.length === 0 || this.spoiled || Date.now() - this.madeAt > 5 * 60_000) await this.renew()
    this.spoiled = spec.method === 'POST' && spec.target.includes('signout')
    const headers = spec.headers.filter(([name]) => HOST_HEADERS.test(name))
    const csrf = await csrfPair(this.svc, headers.length > 0 ? headers : undefined)
    return { csrf, session: this.session, flow: this.flow }
  }

  private async renew(): Promise<void> {
    this.madeAt = Date.now()
    // Without e-mail sign-in (the trustHost service) the live session is a known-answer vector:
    // sealed under the same secret, valid until 2027, and never due for renewal before then.
    this.session = this.svc.smtp
      ? await liveSession(this.svc)
      : Object.entries(sessionCookies(VECTORS.ada)).map(([name, value]) => ({ name, value }))
    this.flow = (await liveFlow(this.svc, 'oidc', '/')).flow
  }
}

/**
 * Sends one request and checks everything issue 13 asks of its answer, then that the process still
 * serves an ordinary GET /csrf. Returns the answer for a property's own further checks.
 */
export async function exchange(
  svc: FuzzService,
  request: RawRequest,
  expected: Expected,
  quiet: () => void,
): Promise<Answer> {
  const answer = await send(svc.port, request)
  expectSafeAnswer(request, answer, expected)
  await expectAlive(svc.port, [['Host', svc.host]])
  quiet()
  return answer
}

export function runCase(svc: FuzzService, spec: Case, material: Material, expected: Expected, quiet: () => void) {
  return exchange(svc, toRequest(spec, material), expected, quiet)
}

/** What a property runs against: the service, its live material, and the check that nothing escaped. */
export interface Fuzzing {
  svc: FuzzService
  material: LiveMaterial
  quiet: () => void
}

/**
 * Starts a service for the describe block this is called in and stops it after: the properties of
 * one configuration share it (each start costs an IdP, a mail server and a second or two). Every
 * case uses its own client address, cookies and e-mail address, so they do not interfere.
 */
export function useService(start: () => Promise<FuzzService>): () => Fuzzing {
  const watch = watchProcess()
  let fuzzing: Fuzzing | undefined
  beforeAll(async () => {
    const svc = await start()
    fuzzing = { svc, material: new LiveMaterial(svc), quiet: watch.expectQuiet }
  }, 60_000)
  afterAll(() => fuzzing?.svc.stop())
  return () => fuzzing!
}
