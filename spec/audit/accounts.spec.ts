import { Browser } from '../support/browser'
import { auditLog, expected } from '../support/audit'
import { GOOD, linkIn, formTo, passwordSignIn, signUp, submit } from '../password/password-harness'
import { codeOf, enrolledUser, newAddress, post, startMfaService, stopAll, type MfaService } from '../mfa/mfa-harness'

/**
 * The audit stream of a user's account over HTTP (password(), accounts, mfa, cookie sessions): a
 * sign-up, a password sign-in refused (a wrong password names its user, an unknown address
 * nobody), a factor added and removed, a wrong second-factor code, a password changed and reset,
 * the user deleted. Each is one record of the right class and activity; no record holds a
 * password, a code, a TOTP secret, a link, a cookie, or the user's e-mail address.
 */

afterEach(stopAll)
const NEW = 'a brand new passphrase 2026'
const RESET = 'another new passphrase 2027'

describe('the audit stream of an account', () => {
  it('records each change of the account, and each refused sign-in with its reason', async () => {
    const log = auditLog()
    const service = await startMfaService(undefined, { options: { audit: log.sink } })
    const address = newAddress()
    const browser = new Browser(service)
    const { key, recoveryCodes } = await enrolledUser(service, browser, address)
    const userId = (await service.record(browser))!.userId
    const change = { class_uid: 3001 as const, userId, ip: '127.0.0.1' }
    const logon = { class_uid: 3002 as const, activity_id: 1, activity_name: 'Logon', ip: '127.0.0.1' }

    expect(await log.of('user.created')).toMatchObject([
      expected({ ...change, activity_id: 1, activity_name: 'Create', provider: 'credentials', ip: null }),
    ])
    expect(await log.of('signin')).toMatchObject([expected({ ...logon, userId, provider: 'credentials' })])
    // The app and its recovery codes: two factors.
    expect(await log.of('factor.added')).toMatchObject([
      expected({ ...change, activity_id: 10, activity_name: 'MFA Factor Enable', provider: null, handle: null }),
      expected({ ...change, activity_id: 10, activity_name: 'MFA Factor Enable', provider: null, handle: null }),
    ])

    log.records.length = 0
    expect((await passwordSignIn(service, new Browser(service), address, `${GOOD}!`)).status).toBe(401)
    expect((await passwordSignIn(service, new Browser(service), newAddress(), GOOD)).status).toBe(401)
    const second = new Browser(service)
    expect((await passwordSignIn(service, second, address, GOOD)).status).toBe(200)
    const wrong = await post(service, second, '/mfa/verify', { factor: 'totp', code: '000000' }, true)
    expect(wrong.status).toBe(401)
    const failure = { ...logon, status: 'Failure' as const, detail: 'CredentialsSignin', provider: 'credentials' }
    expect(await log.of('signin')).toMatchObject([
      expected({ ...failure, userId }),
      expected({ ...failure, userId: null }),
      expected({ ...failure, userId }),
    ])

    const factors = await service.router.listFactors(userId)
    const totp = factors.find(({ type }) => type === 'totp')!
    expect(await service.router.removeFactor(userId, totp.id)).toBe(true)
    // The codes go with the last other factor.
    expect(await log.of('factor.removed')).toMatchObject([
      expected({ ...change, activity_id: 11, activity_name: 'MFA Factor Disable', ip: null }),
      expected({ ...change, activity_id: 11, activity_name: 'MFA Factor Disable', ip: null }),
    ])

    const changed = await submit(browser, service.base, '/password/change', {
      csrfToken: await browser.csrfToken(),
      callbackUrl: '/welcome',
      newPassword: NEW,
      currentPassword: GOOD,
    })
    expect(changed.status).toBe(302)
    expect(await log.of('password.changed')).toMatchObject([
      expected({ ...change, activity_id: 3, activity_name: 'Password Change', provider: 'credentials', handle: null }),
    ])

    const { link, form } = await resetForm(service, browser, address)
    expect((await submit(browser, service.base, '/password/reset', { ...form.fields, password: RESET })).status).toBe(
      302,
    )
    expect(await log.of('password.reset')).toMatchObject([
      expected({ ...change, activity_id: 4, activity_name: 'Password Reset', provider: 'credentials', handle: null }),
    ])

    expect(await service.router.deleteUser(userId)).toBe(true)
    expect(await log.of('user.deleted')).toMatchObject([
      expected({ ...change, activity_id: 6, activity_name: 'Delete', provider: null, ip: null }),
    ])

    // Never a secret, nor the address: the user is named by id alone.
    await log.settled()
    const json = JSON.stringify(log.records)
    const cookies = [browser, second].flatMap((b) => b.jar.all(service.origin).map(({ value }) => value))
    const secrets = [GOOD, NEW, RESET, address, key.toString('hex'), codeOf(key), ...recoveryCodes, link.href]
    for (const secret of [...secrets, ...cookies, link.searchParams.get('token') ?? '']) {
      if (secret.length >= 6) expect(json).not.toContain(secret)
    }
  })

  it('records a refused password change and a refused reset link as Failures, naming nobody for a link', async () => {
    const log = auditLog()
    // No second factor: a change asks for the current password alone.
    const service = await startMfaService(undefined, { options: { audit: log.sink } })
    const address = newAddress()
    const browser = new Browser(service)
    expect((await signUp(service, browser, address, GOOD)).status).toBe(302)
    const userId = (await service.record(browser))!.userId
    log.records.length = 0
    const refused = await submit(browser, service.base, '/password/change', {
      csrfToken: await browser.csrfToken(),
      callbackUrl: '/welcome',
      newPassword: NEW,
      currentPassword: `${GOOD}?`,
    })
    expect(refused.status).toBe(400)
    const change = { class_uid: 3001 as const, status: 'Failure' as const, ip: '127.0.0.1', handle: null }
    expect(await log.of('password.changed')).toMatchObject([
      expected({ ...change, activity_id: 3, activity_name: 'Password Change', userId, detail: 'CredentialsSignin' }),
    ])

    const { form } = await resetForm(service, browser, address)
    const forged = { ...form.fields, token: `${form.fields.token ?? ''}x`, password: RESET }
    expect((await submit(browser, service.base, '/password/reset', forged)).status).toBe(302)
    expect(await log.of('password.reset')).toMatchObject([
      expected({ ...change, activity_id: 4, activity_name: 'Password Reset', userId: null, detail: 'Verification' }),
    ])
    expect(JSON.stringify(log.records)).not.toContain(address)
  })
})

/** Asks for a reset link on the forgot form, opens it from the mail: the link, and the reset page's form. */
async function resetForm(service: MfaService, browser: Browser, address: string) {
  const forgot = await submit(browser, service.base, '/password/forgot', {
    email: address,
    csrfToken: await browser.csrfToken(),
    callbackUrl: '/welcome',
  })
  expect(forgot.status).toBe(302)
  const link = linkIn(await service.smtp.nextMessage(), service.base, '/password/reset')
  const page = await browser.jar.fetch(link, {}, { crossSite: true })
  return { link, form: formTo(await page.text(), service.base, '/password/reset') }
}
