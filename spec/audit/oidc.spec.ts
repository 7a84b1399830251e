import { Browser } from '../support/browser'
import { auditLog, expected, type AuditLog } from '../support/audit'
import { signedIn, signInAs, startAccounts, type AccountsHarness } from '../accounts/accounts-harness'

/**
 * The audit stream of OpenID Connect sign-ins with accounts (the real IdP on loopback): a new
 * user, a sign-in, a way in linked and unlinked; a callback refused (a forged state, the user
 * declining) is a Failure with the reason. No record holds a cookie, a code or a client secret.
 */

let h: AccountsHarness
let log: AuditLog
beforeAll(async () => {
  log = auditLog()
  h = await startAccounts({ options: { audit: log.sink } })
})
afterAll(() => h?.stop())
beforeEach(() => {
  log.records.length = 0
})

const logon = { class_uid: 3002 as const, activity_id: 1, activity_name: 'Logon', ip: '127.0.0.1' }

describe('the audit stream of OpenID Connect sign-ins', () => {
  it('a new user signs in, links a second way in and unlinks it', async () => {
    const { browser, userId } = await signedIn(h, 'oidc', 'alice')
    expect(await log.of('user.created')).toMatchObject([
      expected({ class_uid: 3001, activity_id: 1, activity_name: 'Create', userId, provider: 'oidc', ip: '127.0.0.1' }),
    ])
    // Cookie sessions have no handle.
    expect(await log.of('signin')).toMatchObject([expected({ ...logon, userId, provider: 'oidc', handle: null })])

    await signInAs(h, browser, 'plain', 'alice', { fields: { link: 'true' } })
    expect(await h.waysIn(userId)).toEqual(['oidc', 'plain'])
    const link = { class_uid: 3001 as const, activity_id: 99, userId, provider: 'plain', ip: '127.0.0.1' }
    expect(await log.of('account.linked')).toMatchObject([expected({ ...link, activity_name: 'Account Link' })])

    const plain = await h.wayIn(userId, 'plain')
    const body = new URLSearchParams({ csrfToken: await browser.csrfToken(), accountId: plain.id })
    expect((await browser.jar.fetch(`${h.base}/unlink`, { method: 'POST', body })).status).toBe(302)
    expect(await log.of('account.unlinked')).toMatchObject([expected({ ...link, activity_name: 'Account Unlink' })])

    await log.settled()
    const json = JSON.stringify(log.records)
    for (const secret of ['app-secret', ...browser.jar.all(h.origin).map(({ value }) => value)])
      expect(json).not.toContain(secret)
  })

  it('a callback with a forged state, or the user declining: a Failure with the reason', async () => {
    const browser = new Browser(h)
    await browser.jar.fetch(`${h.base}/callback/oidc?code=stolen-code-123&state=forged`)
    await browser.jar.fetch(`${h.base}/callback/oidc?error=access_denied&state=forged`)
    const refused = { ...logon, status: 'Failure' as const, userId: null, provider: 'oidc' }
    expect(await log.of('signin')).toMatchObject([
      expected({ ...refused, detail: 'OAuthCallback' }),
      expected({ ...refused, detail: 'AccessDenied' }),
    ])
    expect(JSON.stringify(log.records)).not.toContain('stolen-code-123')
  })
})
