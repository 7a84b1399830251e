/**
 * Adding a passkey needs a recent sign-in, over HTTP with a software authenticator: a session signed
 * in longer ago than `passkey({ registrationMaxAge })` (a copied cookie, a shared computer) is told
 * to sign in again (`401 { error: 'SessionRequired', url }` at the options request, the sign-in page
 * at the answer), adds nothing and raises no event; a session signed in since adds its passkey, and
 * `events.passkeyAdded` fires once with the user, the credential ID and the session's handle (null
 * for cookie sessions and sign-ups), never key material. An event that throws or rejects breaks nothing. Sign-out
 * everywhere leaves passkeys where they are; the app deletes one with `deletePasskey`.
 */
import session from 'express-session'
import type { Events } from '../../lib'
import { Browser } from '../support/browser'
import { restoreClock, setClock, useClock } from '../support/clock'
import { SoftAuthenticator } from '../support/soft-authenticator'
import {
  askOptions,
  passkeySignIn,
  postAnswer,
  registerPasskey,
  signInByEmail,
  startPasskeyService,
  welcome,
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

const signInAgain = (service: PasskeyService, back: string) =>
  `${service.base}/signin?${new URLSearchParams({ callbackUrl: back, error: 'SessionRequired' }).toString()}`

describe('adding a passkey needs a recent sign-in', () => {
  it('refuses a session signed in more than registrationMaxAge (300) seconds ago, then accepts one signed in again', async () => {
    const browser = new Browser(service)
    await signInByEmail(service, browser, 'stale@example.com')
    setClock(T + 301)
    const asked = await askOptions(service, browser, { action: 'register', callbackUrl: `${service.origin}/account` })
    expect(asked).toEqual({
      status: 401,
      body: { error: 'SessionRequired', url: signInAgain(service, `${service.origin}/account`) },
    })
    expect(browser.cookie('auth.webauthn-challenge')).toBeUndefined()
    expect(await service.router.listPasskeys('email:stale@example.com')).toEqual([])
    expect(added).toEqual([])

    await signInByEmail(service, browser, 'stale@example.com')
    setClock(T + 301 + 300)
    const authenticator = new SoftAuthenticator(service.origin)
    expect(await registerPasskey(service, browser, authenticator)).toMatchObject({ status: 200, url: welcome(service) })
    const [passkey] = await service.router.listPasskeys('email:stale@example.com')
    expect(added).toEqual([{ userId: 'email:stale@example.com', passkeyId: passkey!.id, handle: null }])
  })

  it('refuses an answer posted with an older session of the user than the one that asked for its options', async () => {
    const old = new Browser(service)
    await signInByEmail(service, old, 'two@example.com')
    setClock(T + 1000)
    const fresh = new Browser(service)
    await signInByEmail(service, fresh, 'two@example.com')
    const asked = await askOptions(service, fresh, { action: 'register' })
    const challenge = fresh.cookie('auth.webauthn-challenge')!
    old.jar.set(service.origin, `${challenge.name}=${challenge.value}; Path=/; HttpOnly; SameSite=Lax`)
    const answer = new SoftAuthenticator(service.origin).create(asked.body.options as never)
    const posted = await postAnswer(service, old, 'register', answer)
    expect(posted).toMatchObject({ status: 401, url: signInAgain(service, welcome(service)), session: false })
    expect(await service.router.listPasskeys('email:two@example.com')).toEqual([])
    expect(added).toEqual([])
  })

  it('keeps passkeys through sign-out everywhere: they sign in again until the app deletes them', async () => {
    const browser = new Browser(service)
    await signInByEmail(service, browser, 'kept@example.com')
    const authenticator = new SoftAuthenticator(service.origin)
    await registerPasskey(service, browser, authenticator)
    await browser.signOut({ everywhere: 'true' })
    await service.router.revokeSessions('email:kept@example.com')
    setClock(T + 10)
    expect(await passkeySignIn(service, new Browser(service), authenticator)).toMatchObject({ session: true })
    const [passkey] = await service.router.listPasskeys('email:kept@example.com')
    expect(await service.router.deletePasskey('email:kept@example.com', passkey!.id)).toBe(true)
    expect(await passkeySignIn(service, new Browser(service), authenticator)).toMatchObject({ session: false })
  })
})

describe('events.passkeyAdded', () => {
  it("names the database session's handle, as listSessions gives it", async () => {
    const events: unknown[] = []
    const database = await startPasskeyService(
      {},
      {
        session: { strategy: 'database', store: new session.MemoryStore() },
        events: { passkeyAdded: (message) => void events.push(message) },
      },
    )
    try {
      const browser = new Browser(database)
      await signInByEmail(database, browser, 'db@example.com')
      await registerPasskey(database, browser, new SoftAuthenticator(database.origin))
      const [device] = await database.router.listSessions('email:db@example.com')
      const [passkey] = await database.router.listPasskeys('email:db@example.com')
      expect(events).toEqual([{ userId: 'email:db@example.com', passkeyId: passkey!.id, handle: device!.handle }])
    } finally {
      await database.close()
    }
  })

  it('fires for a passkey-first sign-up too, with no handle: its session comes after its passkey', async () => {
    const events: unknown[] = []
    const signUp = await startPasskeyService(
      { signUp: true },
      { events: { passkeyAdded: (message) => void events.push(message) } },
    )
    try {
      const browser = new Browser(signUp)
      const asked = await askOptions(signUp, browser, { action: 'register', email: 'new@example.com' })
      const answer = new SoftAuthenticator(signUp.origin).create(asked.body.options as never)
      expect(await postAnswer(signUp, browser, 'register', answer)).toMatchObject({ session: true })
      expect(events).toEqual([{ userId: expect.stringMatching(/^passkey:/), passkeyId: answer.id, handle: null }])
      const { userId } = events[0] as { userId: string }
      expect((await signUp.router.listPasskeys(userId)).map((passkey) => passkey.id)).toEqual([answer.id])
    } finally {
      await signUp.close()
    }
  })

  it.each<[string, NonNullable<Events['passkeyAdded']>]>([
    [
      'throws',
      () => {
        throw new Error('the event failed')
      },
    ],
    ['rejects', () => Promise.reject(new Error('the event failed'))],
  ])('that %s breaks neither the registration nor the process', async (_what, passkeyAdded) => {
    const failing = await startPasskeyService({}, { events: { passkeyAdded } })
    try {
      const browser = new Browser(failing)
      await signInByEmail(failing, browser, 'event@example.com')
      const registered = await registerPasskey(failing, browser, new SoftAuthenticator(failing.origin))
      expect(registered).toMatchObject({ status: 200, url: welcome(failing) })
      expect(await failing.router.listPasskeys('email:event@example.com')).toHaveLength(1)
      expect(failing.logs).toContainEqual(
        expect.objectContaining({ event: 'event.error', message: 'events.passkeyAdded threw: the event failed' }),
      )
    } finally {
      await failing.close()
    }
  })
})
