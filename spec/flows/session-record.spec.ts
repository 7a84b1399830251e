import type { AuthRouter } from '../../lib'
import { Browser } from '../support/browser'
import {
  confirm,
  confirmForm,
  newAddress,
  openLink,
  requestLink,
  startEmailService,
  stopAll,
} from '../support/email-harness'
import { linkInText } from '../support/smtp'

/**
 * The app's own view of a session after a real sign-in (e-mail over SMTP): `getSessionRecord(req)`
 * and `res.locals.sessionRecord` give the user id, the signIn callback's server-side data and the
 * provider that signed the user in, for cookie sessions; the client's `GET /session` shows none of them.
 */

afterEach(stopAll)

/** A service whose app has `/me`, behind requireAuth(), answering with `res.locals.sessionRecord`. */
async function signedIn() {
  const holder: { router?: AuthRouter } = {}
  const service = await startEmailService(
    {},
    { callbacks: { signIn: () => ({ data: { plan: 'pro', nested: { tier: 1 } } }) } },
    {},
    (app) => {
      app.get(
        '/me',
        (req, res, next) => holder.router!.requireAuth()(req, res, next),
        (_req, res) => {
          res.json(res.locals.sessionRecord)
        },
      )
    },
  )
  holder.router = service.router
  return service
}

describe("the app's view of a session after sign-in", () => {
  it('getSessionRecord(req) has the user id, the data and the provider; GET /session has none of them', async () => {
    const service = await signedIn()
    const browser = new Browser(service)
    const address = newAddress()
    await requestLink(service, browser, address)
    const link = linkInText((await service.smtp.nextMessage()).text, service.base)
    const page = await openLink(service, browser, link)
    await confirm(service, browser, confirmForm(page).fields)

    const cookie = browser.jar.header(`${service.base}/session`)!
    const req = { headers: { cookie, host: `localhost:${service.port}` }, protocol: 'http' }
    const record = await service.router.getSessionRecord(req as never)
    expect(record).toMatchObject({
      userId: `email:${address}`,
      user: { email: address },
      data: { plan: 'pro', nested: { tier: 1 } },
      provider: 'email',
    })
    expect(record!.signedInAt).toBeInstanceOf(Date)
    expect(record!.expires.getTime()).toBeGreaterThan(Date.now())
    // The same times in seconds since the epoch, the package's convention (as SessionRecord and listSessions).
    expect(record).toMatchObject({
      createdAt: record!.signedInAt.getTime() / 1000,
      expiresAt: record!.expires.getTime() / 1000,
      issuedAt: expect.any(Number),
    })
    expect(record!.issuedAt).toBeGreaterThanOrEqual(record!.createdAt)
    expect(Object.isFrozen(record)).toBe(true)
    expect(Object.isFrozen(record!.data!.nested)).toBe(true)

    const me = await browser.jar.fetch(`${service.origin}/me`, { headers: { accept: 'application/json' } })
    expect(me.status).toBe(200)
    expect(await me.json()).toMatchObject({ userId: `email:${address}`, provider: 'email', data: { plan: 'pro' } })

    const client = await browser.session()
    expect(JSON.stringify(client)).not.toMatch(/"pro"|provider|email:/)
  })
})
