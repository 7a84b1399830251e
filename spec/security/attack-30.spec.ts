/**
 * Attack on issue 30's fixes, as an outsider would (spec/security/attack-30.spec.ts). Each `it`
 * names what it proves. Findings that still break are `it.failing`: the spec asserts what should
 * hold, jest reports it as passing while the defect is there; the lead's fix makes it fail, and
 * then `.failing` comes off. Checks that held are plain `it`.
 */
import { Browser } from '../support/browser'
import { restoreClock, setClock, useClock } from '../support/clock'
import { SoftAuthenticator } from '../support/soft-authenticator'
import {
  askOptions,
  postAnswer,
  registerPasskey,
  signInByEmail,
  startPasskeyService,
  type PasskeyService,
} from '../support/passkey-harness'

const T = 1_900_000_000
const added: unknown[] = []
let service: PasskeyService

beforeAll(async () => {
  service = await startPasskeyService({}, { events: { passkeyAdded: (message) => void added.push(message) } })
})
afterAll(() => service.close())
beforeEach(() => {
  added.length = 0
  useClock(T)
})
afterEach(restoreClock)

describe('passkey registration needs a recent sign-in (defect 2)', () => {
  // FINDING A30-1 (Medium): with cookie sessions, `POST /signout` with `others=true` writes this
  // browser a new session through manager.start(), dated now (createdAt = revocations.stamp()).
  // A session cookie copied hours ago therefore becomes "recently signed in" by signing out the
  // user's other sessions, and plants a passkey: the very theft defect 2 closes. It also signs the
  // real user out everywhere else. `revokeOthers` should keep the sign-in time (auth_time).
  it.failing('a copied old cookie session cannot freshen its sign-in time with sign-out of the other sessions', async () => {
    const victim = new Browser(service)
    await signInByEmail(service, victim, 'victim@example.com')
    setClock(T + 3600)
    const thief = new Browser(service)
    const cookie = victim.cookie('auth.session-token')!
    thief.jar.set(service.origin, `${cookie.name}=${cookie.value}; Path=/; HttpOnly; SameSite=Lax`)
    expect((await askOptions(service, thief, { action: 'register' })).status).toBe(401)

    const out = await thief.signOut({ others: 'true' })
    expect(out.status).toBe(302)
    // Before the fix the options answer 200 and the thief's authenticator is kept.
    await registerPasskey(service, thief, new SoftAuthenticator(service.origin)).catch(() => null)
    expect(await service.router.listPasskeys('email:victim@example.com')).toEqual([])
    expect(added).toEqual([])
  })

  it('held: the same thief without the sign-out trick is refused at options and at the answer', async () => {
    const victim = new Browser(service)
    await signInByEmail(service, victim, 'held@example.com')
    setClock(T + 3600)
    expect((await askOptions(service, victim, { action: 'register' })).status).toBe(401)
    // A fake answer skipping the options route: no ceremony cookie, refused as 400.
    const posted = await postAnswer(service, victim, 'register', { id: 'x' })
    expect(posted.session).toBe(false)
    expect(await service.router.listPasskeys('email:held@example.com')).toEqual([])
    expect(added).toEqual([])
  })

  it('held: POST /session (update) keeps the sign-in time', async () => {
    const browser = new Browser(service)
    await signInByEmail(service, browser, 'update@example.com')
    setClock(T + 3600)
    const res = await browser.jar.fetch(`${service.base}/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ csrfToken: await browser.csrfToken(), data: {} }),
    })
    expect(res.status).toBeLessThan(500)
    expect((await askOptions(service, browser, { action: 'register' })).status).toBe(401)
    await expect(registerPasskey(service, browser, new SoftAuthenticator(service.origin))).rejects.toThrow(/401/)
  })
})
