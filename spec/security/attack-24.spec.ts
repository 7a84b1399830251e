import { createHash, sign } from 'node:crypto'
import { email } from '../../lib'
import { hasControls } from '../../lib/infra/logger'
import { Browser } from '../support/browser'
import { SoftAuthenticator } from '../support/soft-authenticator'
import {
  askOptions,
  postAnswer,
  signInByEmail,
  signInError,
  startPasskeyService,
  type PasskeyService,
  welcome,
} from '../support/passkey-harness'
import { serve, type Served } from '../support/app'

/**
 * Attacks from outside on passkeys (issue 24): each test is a finding that failed before its fix
 * on this branch.
 */

describe('the passkey script on a service without passkey()', () => {
  let app: Served

  beforeAll(async () => {
    app = await serve({
      providers: [email({ from: 'auth@example.com', sendVerificationRequest: () => undefined })],
    })
  })
  afterAll(() => app.close())

  // The script posts a credential and a CSRF token it fetches to whatever form carries its data
  // attributes: a script gadget on the origin. An app that never configured passkey() must not
  // serve it, or a page of the app allowing same-origin scripts gains it on an HTML injection.
  it('is not served (404), as any route of a provider that is not configured', async () => {
    const res = await fetch(`${app.base}/assets/passkey.js`)
    expect(res.status).toBe(404)
    expect(await res.text()).not.toContain('navigator.credentials')
  })
})

describe('a passkey registration refused for its origin', () => {
  let service: PasskeyService

  beforeAll(async () => {
    service = await startPasskeyService({ signUp: true })
  })
  afterAll(() => service.close())

  // The library's error quotes clientDataJSON's `origin`, the visitor's own text: it reached the
  // `passkey.refused` entry as it was, a line break forging a second line in a line-based logger.
  it('logs the reason with its control characters replaced: no forged line', async () => {
    const browser = new Browser(service)
    const asked = await askOptions(service, browser, { action: 'register', name: 'visitor' })
    const forger = new SoftAuthenticator('http://x\n[express-auth-service] error session.forged: admin signed in')
    const answer = await postAnswer(service, browser, 'register', forger.create(asked.body.options as never))
    expect(answer).toMatchObject({ url: signInError(service), session: false })
    const refused = service.logs.filter((entry) => entry.event === 'passkey.refused')
    expect(refused.length).toBeGreaterThan(0)
    for (const entry of refused) expect(hasControls(entry.message)).toBe(false)
  })
})

describe("a registration answer's transports", () => {
  let service: PasskeyService

  beforeAll(async () => {
    service = await startPasskeyService({ signUp: true })
  })
  afterAll(() => service.close())

  // `response.transports` is the browser's own list, passed through by the library: 20 KB of junk
  // was kept with each passkey (in memory, in Redis, in the app's database) and sent back in every
  // later options answer of that user. Only WebAuthn's transport names are kept, once each.
  it('keeps only known transport names, each once', async () => {
    const browser = new Browser(service)
    await signInByEmail(service, browser, 'transports@example.com')
    const authenticator = new SoftAuthenticator(service.origin)
    const asked = await askOptions(service, browser, { action: 'register' })
    const answer = authenticator.create(asked.body.options as never) as { response: Record<string, unknown> }
    answer.response.transports = ['usb', 'internal', 'usb', ...Array.from({ length: 1500 }, (_, i) => `junk-${i}`)]
    expect(await postAnswer(service, browser, 'register', answer)).toMatchObject({ url: welcome(service) })
    const again = await askOptions(service, browser, { action: 'register' })
    const excluded = (again.body.options as unknown as { excludeCredentials: { transports: string[] }[] })
      .excludeCredentials
    expect(excluded).toHaveLength(1)
    expect(excluded[0]!.transports).toEqual(['usb', 'internal'])
  })
})

describe('an answer made in a cross-origin iframe', () => {
  let service: PasskeyService

  beforeAll(async () => {
    service = await startPasskeyService()
  })
  afterAll(() => service.close())

  // WebAuthn (7.2): `crossOrigin: true` is accepted only by a relying party that expects to be used
  // inside another site's iframe; the service never does (its pages say frame-ancestors 'none').
  // The library checks `topOrigin` only when the browser sends it, which Safari does not: such an
  // answer (an app page with the passkey script, framed by another site) signed the user in.
  it('is refused', async () => {
    const browser = new Browser(service)
    await signInByEmail(service, browser, 'framed@example.com')
    const authenticator = new SoftAuthenticator(service.origin)
    const asked = await askOptions(service, browser, { action: 'register' })
    expect(
      await postAnswer(service, browser, 'register', authenticator.create(asked.body.options as never)),
    ).toMatchObject({ url: welcome(service) })
    await browser.signOut()
    const options = await askOptions(service, browser)
    const answer = authenticator.get(options.body.options as never) as { response: Record<string, string> }
    const clientData = Buffer.from(
      JSON.stringify({
        type: 'webauthn.get',
        challenge: options.body.options!.challenge,
        origin: service.origin,
        crossOrigin: true,
      }),
    )
    const authData = Buffer.from(answer.response.authenticatorData!, 'base64url')
    const signed = Buffer.concat([authData, createHash('sha256').update(clientData).digest()])
    answer.response.clientDataJSON = clientData.toString('base64url')
    answer.response.signature = sign('sha256', signed, authenticator.credentials[0]!.key).toString('base64url')
    expect(await postAnswer(service, browser, 'authenticate', answer)).toMatchObject({
      url: signInError(service),
      session: false,
    })
    expect(await browser.session()).toEqual({})
  })
})
