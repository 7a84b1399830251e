import { memoryAccounts, recoveryCodes, totp } from '../../lib'
import { Browser } from '../support/browser'
import {
  passkeySignIn,
  registerPasskey,
  signInByEmail,
  startPasskeyService,
  type PasskeyService,
} from '../support/passkey-harness'
import { FLAGS, SoftAuthenticator } from '../support/soft-authenticator'
import { base32Decode, totp as totpCode } from '../support/totp'
import { newAddress, stopAll } from './mfa-harness'
import { later } from '../password/password-harness'

/**
 * A passkey whose authenticator verified its user (PIN, biometrics) proves two factors by itself:
 * it makes the session with no second step, `amr` [hwk|swk, user, mfa]. One without user
 * verification (`dangerouslyAllowWithoutUserVerification`) is a first factor like any other.
 */

afterEach(stopAll)

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
async function userWithPasskeyAndApp(s: Awaited<ReturnType<typeof service>>, flags?: number) {
  const browser = new Browser(s)
  await signInByEmail(s, browser, newAddress())
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
