import session from 'express-session'
import { Browser } from '../support/browser'
import { signInByEmail, registerPasskey, startPasskeyService, type PasskeyService } from '../support/passkey-harness'
import { SoftAuthenticator } from '../support/soft-authenticator'
import { confirmForm, openLink } from '../support/email-harness'
import { auditLog, expected, type AuditLog } from '../support/audit'

/**
 * The audit stream of sign-in and of a session's end, with database sessions (whose handles
 * `listSessions` gives): a sign-in by e-mail link and its refusal, a passkey added and removed,
 * sign-out, sign-out of the other sessions and everywhere, a device revoked, `revokeSessions`.
 * Each is one record with its class, activity, status, user, provider, session handle and client;
 * no record holds a cookie, a link, a CSRF token or a credential ID.
 */

let service: PasskeyService
let log: AuditLog
/** The browsers of the spec, whose cookies no record may hold. */
const browsers: Browser[] = []

beforeEach(async () => {
  log = auditLog()
  service = await startPasskeyService(
    {},
    { session: { strategy: 'database', store: new session.MemoryStore() }, audit: log.sink },
  )
})
// Nothing in any record opens anything: no cookie, no link or its token, no CSRF token, no credential ID.
afterEach(async () => {
  await log.settled()
  const json = JSON.stringify(log.records)
  const secrets = [
    ...browsers.flatMap((browser) => browser.jar.all(service.origin).map(({ value }) => value)),
    ...service.links.flatMap((link) => [link, new URL(link).searchParams.get('token')!]),
    ...ids,
  ].filter((value) => value.length >= 8)
  for (const secret of secrets) expect(json).not.toContain(secret)
  browsers.length = 0
  ids.clear()
  await service.close()
})

const address = () => `audit-${Math.random().toString(36).slice(2)}@example.com`
/** The passkeys' credential IDs the specs saw, for the scan. */
const ids = new Set<string>()

/** Signs a new browser in as `user` by e-mail link: the browser, and its session's handle. */
async function signedIn(user: string): Promise<{ browser: Browser; handle: string }> {
  const browser = new Browser(service)
  browsers.push(browser)
  const before = new Set((await service.router.listSessions(`email:${user}`)).map(({ handle }) => handle))
  await signInByEmail(service, browser, user)
  const handle = (await service.router.listSessions(`email:${user}`)).find(({ handle }) => !before.has(handle))!.handle
  return { browser, handle }
}

describe('the audit stream of sessions', () => {
  it('a sign-in: Authentication, Logon, Success, with the new session’s handle', async () => {
    const user = address()
    const { handle } = await signedIn(user)
    const records = await log.of('signin')
    expect(records).toHaveLength(1)
    expect(records[0]).toMatchObject(
      expected({
        class_uid: 3002,
        activity_id: 1,
        activity_name: 'Logon',
        userId: `email:${user}`,
        provider: 'email',
        handle,
        ip: '127.0.0.1',
      }),
    )
    expect(records[0]!.time).toBeGreaterThan(Date.now() - 10_000)
  })

  it('a refused sign-in: Failure, with the reason, and nobody named', async () => {
    const browser = new Browser(service)
    browsers.push(browser)
    const page = await openLink(
      service,
      browser,
      `${service.base}/callback/email?token=not-a-token&email=x%40example.com`,
    )
    const res = await browser.jar.fetch(`${service.base}/callback/email`, {
      method: 'POST',
      body: new URLSearchParams(confirmForm(page).fields),
      headers: { 'user-agent': 'Audit\u0085Agent/1.0' },
    })
    expect(res.status).toBe(302)
    const records = await log.of('signin')
    expect(records).toMatchObject([
      expected({
        class_uid: 3002,
        activity_id: 1,
        activity_name: 'Logon',
        status: 'Failure',
        detail: 'Verification',
        userId: null,
        provider: 'email',
        handle: null,
      }),
    ])
    expect(records[0]!.http_request).toEqual({ user_agent: 'AuditAgent/1.0' })
  })

  it('a passkey added with the session that added it, and removed by the app', async () => {
    const user = address()
    const { browser, handle } = await signedIn(user)
    await registerPasskey(service, browser, new SoftAuthenticator(service.origin))
    const [passkey] = await service.router.listPasskeys(`email:${user}`)
    ids.add(passkey!.id)
    expect(await log.of('passkey.added')).toMatchObject([
      expected({
        class_uid: 3001,
        activity_id: 99,
        activity_name: 'Passkey Add',
        userId: `email:${user}`,
        provider: 'passkey',
        handle,
        ip: '127.0.0.1',
      }),
    ])
    expect(await service.router.deletePasskey(`email:${user}`, passkey!.id)).toBe(true)
    expect(await log.of('passkey.removed')).toMatchObject([
      expected({
        class_uid: 3001,
        activity_id: 99,
        activity_name: 'Passkey Remove',
        userId: `email:${user}`,
        provider: 'passkey',
        handle: null,
        ip: null,
      }),
    ])
  })

  it('sign-out, sign-out of the others, a device revoked, sign-out everywhere, revokeSessions: Logoff each', async () => {
    const user = address()
    const userId = `email:${user}`
    const one = await signedIn(user)
    const two = await signedIn(user)
    const three = await signedIn(user)
    const logoff = { class_uid: 3002 as const, activity_id: 2, activity_name: 'Logoff', userId, provider: 'email' }

    expect((await one.browser.signOut({ others: 'true' })).status).toBe(302)
    expect(await log.of('signout.others')).toMatchObject([expected({ ...logoff, handle: one.handle, ip: '127.0.0.1' })])

    const four = await signedIn(user)
    expect(await service.router.revokeSession(userId, four.handle)).toBe(true)
    expect(await service.router.revokeSession(userId, four.handle)).toBe(false)
    expect(await log.of('session.revoked')).toMatchObject([expected({ ...logoff, handle: four.handle, ip: null })])

    expect((await one.browser.signOut()).status).toBe(302)
    expect(await log.of('signout')).toMatchObject([expected({ ...logoff, handle: one.handle, ip: '127.0.0.1' })])

    const five = await signedIn(user)
    expect((await five.browser.signOut({ everywhere: 'true' })).status).toBe(302)
    await signedIn(user)
    await service.router.revokeSessions(userId)
    const everywhere = await log.of('signout.everywhere')
    expect(everywhere).toMatchObject([
      expected({ ...logoff, handle: null, ip: '127.0.0.1' }),
      expected({ ...logoff, provider: null, handle: null, ip: null }),
    ])
    // Two and three, ended by others=true, have no record of their own: only their sign-ins name them.
    const naming = (handle: string) => log.records.filter(({ session }) => session.uid === handle)
    for (const { handle } of [two, three])
      expect(naming(handle).map(({ metadata }) => metadata.event_code)).toEqual(['signin'])
  })
})
