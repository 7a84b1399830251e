import { memoryAccounts, passkey, password, recoveryCodes, totp } from '../../lib'
import { Browser } from '../support/browser'
import { decodeEntities } from '../support/forms'
import { restoreClock, setClock, useClock } from '../support/clock'
import { requestLink, useLink } from '../support/email-harness'
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
import { FLAGS, SoftAuthenticator } from '../support/soft-authenticator'
import { base32Decode, totp as totpCode } from '../support/totp'
import { newAddress, stopAll } from './mfa-harness'
import { bcryptHash, GOOD, importedAccount, later, passwordSignIn } from '../password/password-harness'

/**
 * A passkey whose authenticator verified its user (PIN, biometrics) proves two factors by itself:
 * it makes the session with no second step, `amr` [hwk|swk, user, mfa]. One without user
 * verification (`dangerouslyAllowWithoutUserVerification`) is a first factor like any other.
 */

afterEach(stopAll)
afterEach(restoreClock)

async function service(options: Parameters<typeof startPasskeyService>[0] = {}) {
  let served: PasskeyService | null = null
  served = await startPasskeyService(
    options,
    { accounts: memoryAccounts(), mfa: { factors: [totp(), recoveryCodes()] } },
    {
      setup: (app) =>
        app.get('/record', (req, res, next) => {
          served!.router
            .getSessionRecord(req)
            .then((record) => res.json(record))
            .catch(next)
        }),
    },
  )
  later(() => served.close())
  return served
}

/** A user signed in by e-mail who adds a passkey (`flags`: what the authenticator says) and then an authenticator app. */
async function userWithPasskeyAndApp(s: Awaited<ReturnType<typeof service>>, flags?: number, address = newAddress()) {
  const browser = new Browser(s)
  await signInByEmail(s, browser, address)
  const authenticator = new SoftAuthenticator(s.origin)
  const added = await registerPasskey(s, browser, authenticator, flags === undefined ? {} : { flags: flags | FLAGS.AT })
  expect(added.status).toBe(200)
  const csrfToken = await browser.csrfToken()
  const setup = await browser.jar.fetch(`${s.base}/mfa/totp/setup`, {
    method: 'POST',
    body: new URLSearchParams({ csrfToken, json: 'true' }),
  })
  const key = base32Decode(((await setup.json()) as { secret: string }).secret)
  const confirmed = await browser.jar.fetch(`${s.base}/mfa/totp/confirm`, {
    method: 'POST',
    body: new URLSearchParams({ csrfToken, json: 'true', code: totpCode(key, Math.floor(Date.now() / 1000)) }),
  })
  expect(confirmed.status).toBe(200)
  return authenticator
}

describe('a passkey and the second factor', () => {
  it('a user-verified passkey signs in with no second step: two factors at once', async () => {
    const s = await service()
    const authenticator = await userWithPasskeyAndApp(s)
    const browser = new Browser(s)
    const signedIn = await passkeySignIn(s, browser, authenticator)
    expect(signedIn.url).toBe(`${s.origin}/welcome`)
    expect(signedIn.session).toBe(true)
    const record = (await (await browser.jar.fetch(`${s.origin}/record`)).json()) as { aal: number; amr: string[] }
    expect(record).toMatchObject({ aal: 2 })
    expect(record.amr).toEqual([expect.stringMatching(/^[hs]wk$/), 'user', 'mfa'])
  })

  it('a passkey without user verification is a first factor: the code is asked', async () => {
    const s = await service({ dangerouslyAllowWithoutUserVerification: true })
    const authenticator = await userWithPasskeyAndApp(s, FLAGS.UP)
    const browser = new Browser(s)
    const signedIn = await passkeySignIn(s, browser, authenticator, { flags: FLAGS.UP })
    expect(signedIn.url).toMatch(new RegExp(`^${s.base}/mfa\\?`))
    expect(signedIn.session).toBe(false)
  })
})

/**
 * With the passkey provider among `mfa.factors`, a passkey is the second step after any first
 * factor: the `{base}/mfa` page's button asks `GET /mfa/passkey/options` (a ceremony limited to the
 * held user's passkeys, bound to the pending sign-in and this browser) and posts the browser's
 * answer to `POST /mfa/passkey`, answered `{ url }`. A refused answer counts as a wrong code.
 */
describe('a passkey as the second step', () => {
  async function stepService(options: Parameters<typeof startPasskeyService>[0] = {}) {
    const store = memoryAccounts()
    let served: PasskeyService | null = null
    served = await startPasskeyService(
      options,
      {
        accounts: store,
        mfa: { factors: [totp(), recoveryCodes(), passkey()] },
        providers: [password({ breached: false })],
      },
      {
        setup: (app) =>
          app.get('/record', (req, res, next) => {
            served!.router
              .getSessionRecord(req)
              .then((record) => res.json(record))
              .catch(next)
          }),
      },
    )
    later(() => served.close())
    return Object.assign(served, { store })
  }
  type StepService = Awaited<ReturnType<typeof stepService>>

  async function recordOf(s: StepService, browser: Browser) {
    return (await (await browser.jar.fetch(`${s.origin}/record`)).json()) as { aal: number; amr: string[] } | null
  }

  /** A user with a password, who signs in with it (no factor yet) and adds a passkey. */
  async function passwordUser(s: StepService) {
    const address = newAddress()
    await importedAccount(s.store, address, await bcryptHash(GOOD, 4))
    const browser = new Browser(s)
    expect(await (await passwordSignIn(s, browser, address, GOOD)).json()).toEqual({ url: welcome(s) })
    const authenticator = new SoftAuthenticator(s.origin)
    expect((await registerPasskey(s, browser, authenticator)).status).toBe(200)
    return { address, authenticator }
  }

  /** A user who signs in by e-mail (the first time: no factor yet) and adds a passkey. */
  async function emailUser(s: StepService) {
    const address = newAddress()
    const browser = new Browser(s)
    await signInByEmail(s, browser, address)
    const authenticator = new SoftAuthenticator(s.origin)
    expect((await registerPasskey(s, browser, authenticator)).status).toBe(200)
    return { address, authenticator }
  }

  /** The password alone: no session, the browser sent to {base}/mfa (the URL). */
  async function pendingByPassword(s: StepService, browser: Browser, address: string): Promise<string> {
    const { url } = (await (await passwordSignIn(s, browser, address, GOOD)).json()) as { url: string }
    expect(url).toBe(mfaUrl(s))
    expect(await recordOf(s, browser)).toBeNull()
    return url
  }

  async function pendingByEmail(s: StepService, browser: Browser, address: string): Promise<void> {
    await requestLink(s, browser, address)
    const res = await useLink(s, browser, s.links.at(-1)!)
    expect({ status: res.status, location: res.headers.get('location') }).toEqual({ status: 302, location: mfaUrl(s) })
    expect(await recordOf(s, browser)).toBeNull()
  }

  function mfaUrl(s: StepService, error?: string): string {
    const query = new URLSearchParams({ callbackUrl: welcome(s), ...(error ? { error } : {}) })
    return `${s.base}/mfa?${query.toString()}`
  }

  interface StepOptions {
    challenge: string
    rpId: string
    userVerification: string
    allowCredentials?: Array<{ id: string; type: string }>
  }

  /** GET /mfa/passkey/options as the page's script asks it (the URL the page gives it). */
  async function askStep(s: StepService, browser: Browser) {
    const query = new URLSearchParams({ callbackUrl: welcome(s) }).toString()
    const res = await browser.jar.fetch(`${s.base}/mfa/passkey/options?${query}`, {
      headers: { accept: 'application/json', 'x-auth-return-redirect': '1' },
    })
    return { status: res.status, body: (await res.json()) as { options?: StepOptions; url?: string; error?: string } }
  }

  /** POST /mfa/passkey as the page's script posts it: the form's fields and `data`, answered `{ url }`. */
  async function answerStep(s: StepService, browser: Browser, answer: unknown, fields: Record<string, string> = {}) {
    const body = new URLSearchParams({
      csrfToken: await browser.csrfToken(),
      callbackUrl: welcome(s),
      data: JSON.stringify(answer),
      ...fields,
    })
    const res = await browser.jar.fetch(`${s.base}/mfa/passkey`, {
      method: 'POST',
      headers: { 'x-auth-return-redirect': '1' },
      body,
    })
    const { url } = (await res.json()) as { url: string }
    return { status: res.status, url, record: await recordOf(s, browser) }
  }

  /** Options asked and answered by `authenticator` (`bend`: what it says). */
  async function passkeyStep(s: StepService, browser: Browser, authenticator: SoftAuthenticator, bend = {}) {
    const asked = await askStep(s, browser)
    expect(asked.status).toBe(200)
    return answerStep(s, browser, authenticator.get(asked.body.options as never, bend))
  }

  const signInAgain = (s: StepService) =>
    `${s.base}/signin?${new URLSearchParams({ callbackUrl: welcome(s), error: 'SessionRequired' }).toString()}`

  it('after a password, a passkey makes the session: two factors, aal 2', async () => {
    const s = await stepService()
    const { address, authenticator } = await passwordUser(s)
    const browser = new Browser(s)
    const url = await pendingByPassword(s, browser, address)

    const page = await browser.jar.fetch(url, { headers: { accept: 'text/html' } })
    const html = await page.text()
    const tag = /<form[^>]*data-mfa-passkey="([^"]*)"[^>]*>([\s\S]*?)<\/form>/.exec(html)
    expect(decodeEntities(tag?.[1] ?? '')).toBe(
      `${s.base}/mfa/passkey/options?${new URLSearchParams({ callbackUrl: welcome(s) }).toString()}`,
    )
    expect(tag?.[2]).toMatch(/<button type="submit" class="button">Use a passkey<\/button>/)
    expect(page.headers.get('content-security-policy')).toContain(`script-src ${s.base}/assets/passkey.js`)

    const asked = await askStep(s, browser)
    expect(asked.status).toBe(200)
    // Only this user's passkey may answer; a PIN or fingerprint is asked for, not required.
    const [credential] = authenticator.credentials
    expect(asked.body.options).toMatchObject({
      rpId: 'localhost',
      userVerification: 'preferred',
      allowCredentials: [{ id: credential!.id.toString('base64url'), type: 'public-key' }],
    })
    const done = await answerStep(s, browser, authenticator.get(asked.body.options as never))
    expect(done).toMatchObject({ status: 200, url: welcome(s), record: { aal: 2, amr: ['pwd', 'hwk', 'user', 'mfa'] } })
  })

  it('after an e-mail link, a passkey without user verification is the second factor', async () => {
    const s = await stepService()
    const { address, authenticator } = await emailUser(s)
    const browser = new Browser(s)
    await pendingByEmail(s, browser, address)
    const done = await passkeyStep(s, browser, authenticator, { flags: FLAGS.UP })
    expect(done).toMatchObject({ status: 200, url: welcome(s), record: { aal: 2, amr: ['otp', 'hwk', 'mfa'] } })
  })

  it("refuses another user's passkey, five times as five wrong codes: the pending sign-in then ends", async () => {
    const s = await stepService()
    const victim = await passwordUser(s)
    const other = await passwordUser(s)
    const browser = new Browser(s)
    await pendingByPassword(s, browser, victim.address)
    for (let i = 1; i <= 5; i++) {
      const refused = await passkeyStep(s, browser, other.authenticator)
      expect(refused).toEqual({ status: 401, url: mfaUrl(s, i < 5 ? 'passkey' : 'ended'), record: null })
    }
    // The right passkey comes too late: no pending sign-in is left in this browser.
    expect(await askStep(s, browser)).toEqual({ status: 401, body: { url: signInAgain(s) } })
    expect((await recordOf(s, browser)) ?? null).toBeNull()
  })

  it('counts refusals for the user over all their pending sign-ins: ten in 15 minutes, then even theirs is not judged', async () => {
    const s = await stepService()
    const victim = await passwordUser(s)
    const other = await passwordUser(s)
    for (let round = 0; round < 2; round++) {
      const browser = new Browser(s)
      await pendingByPassword(s, browser, victim.address)
      for (let i = 0; i < 5; i++) expect((await passkeyStep(s, browser, other.authenticator)).status).toBe(401)
    }
    const browser = new Browser(s)
    await pendingByPassword(s, browser, victim.address)
    const late = await passkeyStep(s, browser, victim.authenticator)
    expect(late).toEqual({ status: 401, url: mfaUrl(s, 'ended'), record: null })
  })

  it('refuses a replayed answer: in another pending sign-in, and twice in one ceremony', async () => {
    const s = await stepService()
    const { address, authenticator } = await passwordUser(s)
    const first = new Browser(s)
    await pendingByPassword(s, first, address)
    const asked = await askStep(s, first)
    const answer = authenticator.get(asked.body.options as never)
    expect((await answerStep(s, first, answer)).record).toMatchObject({ aal: 2 })

    // The answer seen once (a proxy's log, say), sent for another pending sign-in of the user.
    const second = new Browser(s)
    await pendingByPassword(s, second, address)
    expect((await askStep(s, second)).status).toBe(200)
    expect(await answerStep(s, second, answer)).toEqual({ status: 401, url: mfaUrl(s, 'passkey'), record: null })
    // The same answer again, the ceremony spent by the first try.
    expect(await answerStep(s, second, answer)).toEqual({ status: 401, url: mfaUrl(s, 'passkey'), record: null })

    // A ceremony is spent by its first answer, a refused one too: a good answer to it comes too late.
    const options = (await askStep(s, second)).body.options as never
    expect((await answerStep(s, second, authenticator.get(options, { tamper: true }))).status).toBe(401)
    expect((await answerStep(s, second, authenticator.get(options))).status).toBe(401)
    // A new ceremony, and the passkey makes the session: refusals did not end it yet (four so far).
    expect((await passkeyStep(s, second, authenticator)).record).toMatchObject({ aal: 2 })
  })

  it('refuses without a pending sign-in: another browser, and after five minutes', async () => {
    const s = await stepService()
    const { address, authenticator } = await passwordUser(s)
    const stranger = new Browser(s)
    expect(await askStep(s, stranger)).toEqual({ status: 401, body: { url: signInAgain(s) } })

    const browser = new Browser(s)
    const now = Math.floor(Date.now() / 1000)
    useClock(now)
    await pendingByPassword(s, browser, address)
    const options = (await askStep(s, browser)).body.options as never
    // The browser's answer, posted by another browser (the pending cookie stays in the first).
    expect(await answerStep(s, stranger, authenticator.get(options))).toEqual({
      status: 401,
      url: signInAgain(s),
      record: null,
    })
    const later5 = (await askStep(s, browser)).body.options as never
    setClock(now + 301)
    expect(await answerStep(s, browser, authenticator.get(later5))).toEqual({
      status: 401,
      url: signInAgain(s),
      record: null,
    })
  })

  it('keeps its ceremony and a sign-in ceremony apart, and asks for the CSRF token', async () => {
    const s = await stepService()
    const { address, authenticator } = await passwordUser(s)
    const browser = new Browser(s)
    await pendingByPassword(s, browser, address)
    // A sign-in's ceremony (discoverable credentials) does not answer the second step…
    const signIn = await askOptions(s, browser)
    expect(await answerStep(s, browser, authenticator.get(signIn.body.options as never))).toMatchObject({
      status: 401,
      record: null,
    })
    // …and the second step's ceremony does not sign in at the passkey's callback.
    const step = await askStep(s, browser)
    const posted = await postAnswer(s, browser, 'second-step', authenticator.get(step.body.options as never))
    expect(posted).toMatchObject({ url: signInError(s), session: false })
    // Without the CSRF token nothing is judged or spent.
    const options = (await askStep(s, browser)).body.options as never
    const forged = await answerStep(s, browser, authenticator.get(options), { csrfToken: 'forged' })
    expect(forged).toMatchObject({ status: 403, record: null })
    expect(forged.url).toContain(`${s.base}/mfa?`)
    expect((await answerStep(s, browser, authenticator.get(options))).record).toMatchObject({ aal: 2 })
  })

  it('asks a passkey that signed in without user verification to verify its user as the second step', async () => {
    const s = await stepService({ dangerouslyAllowWithoutUserVerification: true })
    const { authenticator } = await emailUser(s)
    const browser = new Browser(s)
    const first = await passkeySignIn(s, browser, authenticator, { flags: FLAGS.UP })
    expect(first).toMatchObject({ url: mfaUrl(s), session: false })
    const asked = await askStep(s, browser)
    expect(asked.body.options?.userVerification).toBe('required')
    const sameKey = await answerStep(s, browser, authenticator.get(asked.body.options as never, { flags: FLAGS.UP }))
    expect(sameKey).toEqual({ status: 401, url: mfaUrl(s, 'passkey'), record: null })
    const verified = await passkeyStep(s, browser, authenticator)
    expect(verified.record).toMatchObject({ aal: 2, amr: ['hwk', 'user', 'mfa'] })
  })

  it('counts a passkey as enrolled: the first factor alone cannot set up an app in its place', async () => {
    const s = await stepService()
    const { address, authenticator } = await passwordUser(s)
    const browser = new Browser(s)
    const url = await pendingByPassword(s, browser, address)
    // The page offers the passkey, not the app's set-up…
    const page = await browser.jar.fetch(url, { headers: { accept: 'text/html' } })
    expect(page.status).toBe(200)
    expect(await page.text()).toContain('data-mfa-passkey')
    // …and an app set up now, by whoever has the password, would be a way around the passkey.
    const csrfToken = await browser.csrfToken()
    const setup = await browser.jar.fetch(`${s.base}/mfa/totp/setup`, {
      method: 'POST',
      body: new URLSearchParams({ csrfToken, json: 'true' }),
    })
    expect(setup.status).toBe(401)
    expect(await setup.text()).not.toContain('secret')
    expect((await passkeyStep(s, browser, authenticator)).record).toMatchObject({ aal: 2 })
  })

  it('is not offered when mfa.factors leaves the passkey out: the page has codes only', async () => {
    const s = await service()
    const address = newAddress()
    await userWithPasskeyAndApp(s, undefined, address)
    const browser = new Browser(s)
    await requestLink(s, browser, address)
    const held = await useLink(s, browser, s.links.at(-1)!)
    const page = await browser.jar.fetch(held.headers.get('location')!, { headers: { accept: 'text/html' } })
    const html = await page.text()
    expect(html).toContain('name="code"')
    expect(html).not.toMatch(/data-mfa-passkey|<script/)
    const res = await browser.jar.fetch(`${s.base}/mfa/passkey/options`, {
      headers: { accept: 'application/json', 'x-auth-return-redirect': '1' },
    })
    expect(res.status).toBe(404)
  })
})
