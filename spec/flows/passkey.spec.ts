/**
 * Passkeys over HTTP, with a software authenticator: a signed-in user adds a passkey and signs in
 * with it after signing out (NextAuth v5's passkey wire: the options route, the form posted to the
 * callback, `{url}` back), and every answer the ceremony's rules refuse is refused with nothing
 * created: no session, no passkey.
 */
import fc from 'fast-check'
import { memoryPasskeyStore, type PasskeyStore, type StoredPasskey } from '../../lib/features/passkey/store'
import { Browser } from '../support/browser'
import { SoftAuthenticator, FLAGS } from '../support/soft-authenticator'
import {
  askOptions,
  passkeySignIn,
  postAnswer,
  registerPasskey,
  signInByEmail,
  signInError,
  startPasskeyService,
  welcome,
  type PasskeyService,
} from '../support/passkey-harness'

let service: PasskeyService
const cloned: unknown[] = []

beforeAll(async () => {
  service = await startPasskeyService({}, { events: { passkeyCloned: (message) => void cloned.push(message) } })
})
afterAll(() => service.close())

/** A user signed in by e-mail who has added one passkey, then signed out. */
async function userWithPasskey(address: string) {
  const browser = new Browser(service)
  await signInByEmail(service, browser, address)
  const authenticator = new SoftAuthenticator(service.origin)
  const added = await registerPasskey(service, browser, authenticator)
  expect(added).toMatchObject({ status: 200, url: welcome(service), session: false })
  await browser.signOut()
  return { browser, authenticator }
}

describe('passkeys over NextAuth v5 passkey wire', () => {
  it('lists the provider as webauthn and answers options as the client reads them', async () => {
    const browser = new Browser(service)
    const providers = (await (await browser.jar.fetch(`${service.base}/providers`)).json()) as Record<string, unknown>
    expect(providers.passkey).toEqual({
      id: 'passkey',
      name: 'Passkey',
      type: 'webauthn',
      signinUrl: `${service.base}/signin/passkey`,
      callbackUrl: `${service.base}/callback/passkey`,
    })
    const asked = await askOptions(service, browser)
    expect(asked.status).toBe(200)
    expect(asked.body.action).toBe('authenticate')
    expect(asked.body.options).toMatchObject({ rpId: 'localhost', userVerification: 'required' })
    expect(asked.body.options!.challenge).toMatch(/^[\w-]{43}$/)
    expect(browser.cookie('auth.webauthn-challenge')).toMatchObject({ httpOnly: true, sameSite: 'Lax' })
  })

  it('adds a passkey for a signed-in user, who signs in with it after signing out', async () => {
    const { browser, authenticator } = await userWithPasskey('ada@example.com')
    expect(await browser.session()).toEqual({})
    const signedIn = await passkeySignIn(service, browser, authenticator)
    expect(signedIn).toMatchObject({ status: 200, url: welcome(service), session: true })
    expect(await browser.session()).toMatchObject({ user: { email: 'ada@example.com' } })
    const [listed] = await service.router.listPasskeys('email:ada@example.com')
    expect(listed).toMatchObject({ name: 'Passkey', backedUp: false, model: null })
    expect(listed!.lastUsedAt).toBeInstanceOf(Date)
  })

  it("signs in with a passkey added through NextAuth v5's own client (its user handle kept as text)", async () => {
    const browser = new Browser(service)
    await signInByEmail(service, browser, 'nextauth-client@example.com')
    const authenticator = new SoftAuthenticator(service.origin)
    const added = await registerPasskey(service, browser, authenticator, { userIdAsText: true })
    expect(added).toMatchObject({ status: 200, session: false })
    await browser.signOut()
    const signedIn = await passkeySignIn(service, browser, authenticator)
    expect(signedIn).toMatchObject({ status: 200, url: welcome(service), session: true })
    expect(await browser.session()).toMatchObject({ user: { email: 'nextauth-client@example.com' } })
  })

  it('uses a random user handle, never the address or the user id', async () => {
    const browser = new Browser(service)
    await signInByEmail(service, browser, 'handle@example.com')
    const asked = await askOptions(service, browser, { action: 'register' })
    const handle = Buffer.from(asked.body.options!.user.id, 'base64url')
    expect(handle).toHaveLength(32)
    expect(handle.toString('latin1')).not.toContain('handle@example.com')
    expect(asked.body.options!.authenticatorSelection).toMatchObject({
      residentKey: 'required',
      userVerification: 'required',
    })
  })

  it('refuses registration without a session unless passkey-first sign-up is on', async () => {
    const asked = await askOptions(service, new Browser(service), { action: 'register', email: 'new@example.com' })
    expect(asked).toEqual({ status: 400, body: { error: 'Invalid request' } })
    expect((await askOptions(service, new Browser(service), { action: 'delete' })).status).toBe(400)
  })
})

describe("the sign-in page's script", () => {
  it('is allowed by the sign-in page only, by its URL, and served as a script of ours', async () => {
    const browser = new Browser(service)
    const signin = await browser.jar.fetch(`${service.base}/signin`)
    expect(signin.headers.get('content-security-policy')).toContain(
      `script-src ${service.base}/assets/passkey.js; connect-src 'self'`,
    )
    const html = await signin.text()
    expect(html).toContain(`<script src="${service.base}/assets/passkey.js"></script>`)
    expect(html).toContain('autocomplete="email webauthn"')
    const signout = await browser.jar.fetch(`${service.base}/signout`)
    expect(signout.headers.get('content-security-policy')).not.toContain('script-src')
    expect(await signout.text()).not.toContain('<script')
    const script = await browser.jar.fetch(`${service.base}/assets/passkey.js`)
    expect(script.status).toBe(200)
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
    expect(script.headers.get('x-content-type-options')).toBe('nosniff')
    expect(await script.text()).toContain('navigator.credentials')
  })
})

describe('refusals, each with nothing created', () => {
  let user: Awaited<ReturnType<typeof userWithPasskey>>
  beforeAll(async () => {
    user = await userWithPasskey('refusals@example.com')
  })

  const refused = (answer: { status: number; url: string | undefined; session: boolean }) =>
    expect(answer).toEqual(expect.objectContaining({ url: signInError(service), session: false }))

  it('a replayed challenge: the same answer with the same cookie again', async () => {
    // A synced passkey's counter stays 0, so only the spent challenge can stop the replay.
    const { browser, authenticator } = await userWithPasskey('replay@example.com')
    const asked = await askOptions(service, browser)
    const cookie = browser.cookie('auth.webauthn-challenge')!
    const answer = authenticator.get(asked.body.options as never, { counter: 0 })
    expect(await postAnswer(service, browser, 'authenticate', answer)).toMatchObject({ session: true })
    await browser.signOut()
    browser.jar.set(service.origin, `${cookie.name}=${cookie.value}; Path=/; HttpOnly; SameSite=Lax`)
    refused(await postAnswer(service, browser, 'authenticate', answer))
    // A new ceremony of the same passkey still signs in.
    expect(await passkeySignIn(service, browser, authenticator, { counter: 0 })).toMatchObject({ session: true })
  })

  it("a challenge from another browser, with that browser's cookie missing or its own", async () => {
    const { browser, authenticator } = user
    const asked = await askOptions(service, browser)
    const answer = authenticator.get(asked.body.options as never)
    const other = new Browser(service)
    refused(await postAnswer(service, other, 'authenticate', answer))
    await askOptions(service, other)
    refused(await postAnswer(service, other, 'authenticate', answer))
  })

  it.each([
    ['another origin', { origin: 'http://evil.localhost:1' }],
    ['another RP ID', { rpId: 'example.com' }],
    ['user verification missing', { flags: FLAGS.UP }],
    ['a tampered signature', { tamper: true }],
    ['a registration answer posted as a sign-in', { type: 'webauthn.create' }],
  ])('an assertion with %s', async (_what, bend) => {
    const browser = new Browser(service)
    refused(await passkeySignIn(service, browser, user.authenticator, bend))
  })

  it('an unknown credential', async () => {
    const stranger = new SoftAuthenticator(service.origin)
    stranger.create({ challenge: 'AAAA', rp: { id: 'localhost' }, user: { id: 'AAAA' } })
    refused(await passkeySignIn(service, new Browser(service), stranger))
  })

  it('a counter that went backwards, which raises passkeyCloned', async () => {
    const { authenticator } = user
    const credential = authenticator.credentials[0]!
    expect(await passkeySignIn(service, new Browser(service), authenticator, { counter: 50 })).toMatchObject({
      session: true,
    })
    refused(await passkeySignIn(service, new Browser(service), authenticator, { counter: 40 }))
    expect(cloned).toContainEqual({
      userId: 'email:refusals@example.com',
      passkeyId: credential.id.toString('base64url'),
      storedCounter: 50,
      receivedCounter: 40,
    })
    expect(service.logs.some((entry) => entry.event === 'passkey.cloned')).toBe(true)
    credential.counter = 50
  })

  it('a registration of a credential ID that exists, by the same user or another', async () => {
    const { authenticator } = user
    for (const address of ['refusals@example.com', 'other@example.com']) {
      const browser = new Browser(service)
      await signInByEmail(service, browser, address)
      const asked = await askOptions(service, browser, { action: 'register' })
      const answer = authenticator.create(asked.body.options as never, {}, authenticator.credentials[0])
      refused(await postAnswer(service, browser, 'register', answer))
    }
    expect(await service.router.listPasskeys('email:refusals@example.com')).toHaveLength(1)
    expect(await service.router.listPasskeys('email:other@example.com')).toHaveLength(0)
  })

  it('a registration whose user signed out (or another signed in) after asking for its options', async () => {
    const browser = new Browser(service)
    await signInByEmail(service, browser, 'first@example.com')
    const asked = await askOptions(service, browser, { action: 'register' })
    await browser.signOut()
    await signInByEmail(service, browser, 'second@example.com')
    refused(
      await postAnswer(
        service,
        browser,
        'register',
        new SoftAuthenticator(service.origin).create(asked.body.options as never),
      ),
    )
    expect(await service.router.listPasskeys('email:first@example.com')).toEqual([])
    expect(await service.router.listPasskeys('email:second@example.com')).toEqual([])
  })

  it('a registration with user verification missing', async () => {
    const browser = new Browser(service)
    await signInByEmail(service, browser, 'nouv@example.com')
    refused(
      await registerPasskey(service, browser, new SoftAuthenticator(service.origin), { flags: FLAGS.UP | FLAGS.AT }),
    )
    expect(await service.router.listPasskeys('email:nouv@example.com')).toEqual([])
  })

  it('malformed and oversized answers', async () => {
    const { browser, authenticator } = user
    const good = authenticator.get((await askOptions(service, browser)).body.options as never)
    const cases: unknown[] = [
      '',
      'not json',
      '[]',
      '{}',
      JSON.stringify({ id: 42, response: {} }),
      JSON.stringify({ id: 'not base64url!', response: {} }),
      JSON.stringify({ ...good, response: 'x' }),
      JSON.stringify({ ...good, response: { ...(good.response as object), authenticatorData: 'AAAA' } }),
      JSON.stringify({ ...good, response: { ...(good.response as object), clientDataJSON: '!!' } }),
      JSON.stringify({ ...good, padding: 'x'.repeat(40_000) }),
    ]
    for (const data of cases) {
      await askOptions(service, browser)
      const answer = await postAnswer(service, browser, 'authenticate', data)
      expect({ data: String(data).slice(0, 60), ...answer, res: undefined }).toEqual({
        data: String(data).slice(0, 60),
        status: 200,
        url: signInError(service),
        session: false,
        res: undefined,
      })
    }
    await askOptions(service, browser)
    expect((await postAnswer(service, browser, 'authenticate', 'x'.repeat(70_000))).status).toBe(413)
  })

  it('fuzzed answers: never a session, never a 5xx, and the service still signs in after them', async () => {
    const { browser, authenticator } = user
    const good = authenticator.get((await askOptions(service, browser)).body.options as never)
    const response = good.response as Record<string, string>
    // Around a genuine answer: each field replaced by anything JSON can hold, or the whole by noise.
    const bent = fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.json({ maxDepth: 3 }),
      fc
        .record({
          field: fc.constantFrom('clientDataJSON', 'authenticatorData', 'signature', 'userHandle', 'attestationObject'),
          value: fc.jsonValue({ maxDepth: 2 }),
        })
        .map(({ field, value }) => JSON.stringify({ ...good, response: { ...response, [field]: value } })),
      fc
        .record({ field: fc.constantFrom('id', 'rawId', 'type', 'response'), value: fc.jsonValue({ maxDepth: 2 }) })
        .map(({ field, value }) => JSON.stringify({ ...good, [field]: value })),
    )
    await fc.assert(
      fc.asyncProperty(bent, fc.constantFrom('authenticate', 'register', '', 'x'), async (data, action) => {
        await askOptions(service, browser)
        const answer = await postAnswer(service, browser, action, data)
        return answer.status < 500 && !answer.session
      }),
      { numRuns: 150 },
    )
    expect(await passkeySignIn(service, browser, authenticator)).toMatchObject({ session: true })
  })

  it('an answer without a valid CSRF token spends nothing', async () => {
    const { browser, authenticator } = user
    const asked = await askOptions(service, browser)
    const answer = authenticator.get(asked.body.options as never)
    const refusedCsrf = await postAnswer(service, browser, 'authenticate', answer, { csrfToken: 'wrong' })
    expect(refusedCsrf).toMatchObject({ status: 403, session: false })
    expect(await postAnswer(service, browser, 'authenticate', answer)).toMatchObject({ session: true })
  })

  it('an answer from another site (the origin check)', async () => {
    const { browser, authenticator } = user
    const asked = await askOptions(service, browser)
    const answer = authenticator.get(asked.body.options as never)
    const headers = { 'X-Auth-Return-Redirect': '1', 'Sec-Fetch-Site': 'cross-site', Origin: 'https://evil.example' }
    const body = new URLSearchParams({
      action: 'authenticate',
      data: JSON.stringify(answer),
      csrfToken: await browser.csrfToken(),
    })
    const posted = await browser.jar.fetch(`${service.base}/callback/passkey`, { method: 'POST', headers, body })
    expect(posted.status).toBe(403)
    expect(posted.headers.getSetCookie().filter((line) => line.startsWith('auth.session-token'))).toEqual([])
    // Refused before anything was read: the ceremony is still this browser's.
    expect(await postAnswer(service, browser, 'authenticate', answer)).toMatchObject({ session: true })
    const crossSite = await browser.jar.fetch(`${service.base}/webauthn-options/passkey`, {
      headers: { 'Sec-Fetch-Site': 'cross-site', Origin: 'https://evil.example' },
    })
    expect(crossSite.status).toBe(403)
    expect(crossSite.headers.getSetCookie()).toEqual([])
  })
})

describe('the request rate limit', () => {
  it('counts options requests and answers, as the other sign-in routes', async () => {
    const limited = await startPasskeyService({}, { requestRateLimit: { limit: 3 } })
    try {
      const browser = new Browser(limited)
      expect((await askOptions(limited, browser)).status).toBe(200)
      expect((await askOptions(limited, browser)).status).toBe(200)
      expect((await postAnswer(limited, browser, 'authenticate', '{}')).status).toBe(200)
      const refused = await browser.jar.fetch(`${limited.base}/webauthn-options/passkey`)
      expect(refused.status).toBe(429)
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/)
    } finally {
      await limited.close()
    }
  })
})

describe('managing passkeys', () => {
  it('lists, renames and deletes a user’s own passkeys only', async () => {
    await userWithPasskey('manage@example.com')
    const { router } = service
    const [passkey] = await router.listPasskeys('email:manage@example.com')
    expect(passkey).toMatchObject({ name: 'Passkey', lastUsedAt: null, aaguid: '00000000-0000-0000-0000-000000000000' })
    expect(await router.renamePasskey('email:someone-else', passkey!.id, 'Mine now')).toBe(false)
    expect(await router.renamePasskey('email:manage@example.com', passkey!.id, 'Laptop')).toBe(true)
    expect(await router.listPasskeys('email:manage@example.com')).toMatchObject([{ name: 'Laptop' }])
    expect(await router.deletePasskey('email:someone-else', passkey!.id)).toBe(false)
    expect(await router.deletePasskey('email:manage@example.com', passkey!.id)).toBe(true)
    expect(await router.listPasskeys('email:manage@example.com')).toEqual([])
  })
})

describe('passkey-first sign-up (opt-in)', () => {
  let signUp: PasskeyService
  const allow = { value: true as boolean }
  beforeAll(async () => {
    signUp = await startPasskeyService({ signUp: true }, { callbacks: { signIn: () => allow.value } })
  })
  afterAll(() => signUp.close())

  it('creates an account with a passkey only when the signIn callback allows', async () => {
    allow.value = false
    const denied = new SoftAuthenticator(signUp.origin)
    const browser = new Browser(signUp)
    const asked = await askOptions(signUp, browser, { action: 'register', email: 'typed@example.com' })
    expect(asked.body.options!.user.name).toBe('typed@example.com')
    const refused = await postAnswer(signUp, browser, 'register', denied.create(asked.body.options as never))
    expect(refused).toMatchObject({ url: `${signUp.base}/error?error=AccessDenied`, session: false })
    expect(await passkeySignIn(signUp, new Browser(signUp), denied)).toMatchObject({ session: false })

    allow.value = true
    const authenticator = new SoftAuthenticator(signUp.origin)
    const again = await askOptions(signUp, browser, { action: 'register', email: 'typed@example.com' })
    const created = await postAnswer(signUp, browser, 'register', authenticator.create(again.body.options as never))
    expect(created).toMatchObject({ url: welcome(signUp), session: true })
    // The typed address is the visitor's own text: never the session's e-mail.
    expect(await browser.session()).toMatchObject({ user: { name: 'typed@example.com', email: null } })
    await browser.signOut()
    expect(await passkeySignIn(signUp, browser, authenticator)).toMatchObject({ session: true })
    // The new account's second passkey gets the same user handle as its first.
    const second = await askOptions(signUp, browser, { action: 'register' })
    expect(second.body.options!.user.id).toBe(again.body.options!.user.id)
  })
})

describe("the app's own store, answering what it should not", () => {
  it('fails closed: a passkey record that lost its user, or names another credential, signs nobody in', async () => {
    const inner = memoryPasskeyStore()
    let bend: ((passkey: StoredPasskey) => unknown) | null = null
    const store: PasskeyStore = {
      ...inner,
      get: async (id) => {
        const passkey = await inner.get(id)
        return passkey && bend ? (bend(passkey) as StoredPasskey) : passkey
      },
    }
    const own = await startPasskeyService({ store })
    try {
      const browser = new Browser(own)
      await signInByEmail(own, browser, 'own-store@example.com')
      const authenticator = new SoftAuthenticator(own.origin)
      expect(await registerPasskey(own, browser, authenticator)).toMatchObject({ status: 200 })
      await browser.signOut()
      for (const broken of [
        (passkey: StoredPasskey) => ({ ...passkey, userId: undefined }),
        (passkey: StoredPasskey) => ({ ...passkey, userId: '' }),
        (passkey: StoredPasskey) => ({ ...passkey, id: 'another' }),
        (passkey: StoredPasskey) => ({ ...passkey, counter: -1 }),
        (passkey: StoredPasskey) => ({ ...passkey, user: null }),
        () => 'a passkey',
      ]) {
        bend = broken
        const answer = await passkeySignIn(own, new Browser(own), authenticator)
        expect({ url: answer.url, session: answer.session }).toEqual({ url: signInError(own), session: false })
      }
      bend = null
      expect(await passkeySignIn(own, new Browser(own), authenticator)).toMatchObject({ session: true })
    } finally {
      await own.close()
    }
  })
})
