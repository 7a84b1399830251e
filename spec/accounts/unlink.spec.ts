import { AuthError } from '../../lib'
import { Browser } from '../support/browser'
import { restoreClock, useClock } from '../support/clock'
import { eventsSince, follow, signedIn, signInAs, startAccounts, type AccountsHarness } from './accounts-harness'

// Issue 32's unlinking over HTTP with the real IdP: POST {base}/unlink (CSRF, a recent sign-in,
// `accountId`, `callbackUrl`) removes one of the user's own ways in, never the last
// (LastSignInMethod), never another user's; and router.unlinkAccount(userId, accountId).

let h: AccountsHarness
beforeAll(async () => {
  h = await startAccounts()
})
afterAll(() => h?.stop())
afterEach(restoreClock)

/** `login` signed in with `oidc`, and `plain` linked: two ways in. */
async function twoWaysIn(login: string): Promise<{ browser: Browser; userId: string }> {
  const signed = await signedIn(h, 'oidc', login)
  await signInAs(h, signed.browser, 'plain', login, { fields: { link: 'true' } })
  expect(await h.waysIn(signed.userId)).toEqual(['oidc', 'plain'])
  return signed
}

/** POST {base}/unlink as the app's account page posts it: the CSRF token, `callbackUrl` /account, and `fields`. */
async function unlink(browser: Browser, fields: Record<string, string>, csrf = true): Promise<Response> {
  const body = new URLSearchParams({
    ...(csrf ? { csrfToken: await browser.csrfToken() } : {}),
    callbackUrl: '/account',
    ...fields,
  })
  return browser.jar.fetch(`${h.base}/unlink`, { method: 'POST', body })
}

describe('POST /unlink', () => {
  it('removes a linked way in and goes back to the callbackUrl; that way in no longer signs in as the user', async () => {
    const { browser, userId } = await twoWaysIn('alice')
    const plain = await h.wayIn(userId, 'plain')
    const from = h.events.length

    const res = await unlink(browser, { accountId: plain.id })
    expect(res.status).toBe(302)
    expect(res.headers.get('location')).toBe(`${h.origin}/account`)
    expect(await h.waysIn(userId)).toEqual(['oidc'])
    expect(eventsSince(h, from)).toEqual([{ name: 'accountUnlinked', message: { userId, account: plain } }])
    expect(await h.whoami(browser)).toBe(userId)

    // plain's identity is nobody's now; its verified address is alice's: the confirm path.
    const res2 = await signInAs(h, new Browser(h), 'plain', 'alice')
    expect(res2.headers.get('location')).toBe(`${h.base}/error?error=OAuthAccountNotLinked`)
  })

  it('answers {url} in JSON mode, and goes back only to a callbackUrl of this site', async () => {
    const { browser, userId } = await twoWaysIn('bob')
    const plain = await h.wayIn(userId, 'plain')
    const res = await unlink(browser, { accountId: plain.id, json: 'true', callbackUrl: 'https://evil.example/x' })
    expect(res.status).toBe(200)
    const { url } = (await res.json()) as { url: string }
    expect(new URL(url).origin).toBe(h.origin)
    expect(await h.waysIn(userId)).toEqual(['oidc'])
  })

  it('refuses to remove the last way in: LastSignInMethod, its page (409 in JSON mode)', async () => {
    const { browser, userId } = await signedIn(h, 'oidc', 'carol')
    const only = await h.wayIn(userId, 'oidc')
    const from = h.events.length

    const res = await unlink(browser, { accountId: only.id })
    expect(res.status).toBe(302)
    expect(res.headers.get('location')).toBe(`${h.base}/error?error=LastSignInMethod`)
    const page = await follow(browser, res.headers.get('location')!)
    expect(page.status).toBe(409)
    expect(page.text).toContain('This is the only way left to sign in to your account.')

    const json = await unlink(browser, { accountId: only.id, json: 'true' })
    expect(json.status).toBe(409)
    expect(await json.json()).toEqual({ url: `${h.base}/error?error=LastSignInMethod` })
    expect(await h.waysIn(userId)).toEqual(['oidc'])
    expect(eventsSince(h, from)).toEqual([])
  })

  it("refuses another user's account id, an unknown one and none (Default; 404 in JSON mode)", async () => {
    const dave = await twoWaysIn('dave')
    const erin = await signedIn(h, 'oidc', 'erin')
    const daves = await h.wayIn(dave.userId, 'plain')
    const from = h.events.length

    const asked: Array<Record<string, string>> = [
      { accountId: daves.id },
      { accountId: 'no-such-account' },
      { accountId: '' },
      {},
    ]
    for (const fields of asked) {
      const res = await unlink(erin.browser, fields)
      expect([fields, res.status, res.headers.get('location')]).toEqual([fields, 302, `${h.base}/error?error=Default`])
      const json = await unlink(erin.browser, { ...fields, json: 'true' })
      expect([fields, json.status]).toEqual([fields, 404])
    }
    expect(await h.waysIn(dave.userId)).toEqual(['oidc', 'plain'])
    expect(await h.waysIn(erin.userId)).toEqual(['oidc'])
    expect(eventsSince(h, from)).toEqual([])
  })

  it('refuses a POST without the CSRF token, or with another browser’s', async () => {
    const { browser, userId } = await twoWaysIn('frank')
    const plain = await h.wayIn(userId, 'plain')
    const from = h.events.length

    expect((await unlink(browser, { accountId: plain.id }, false)).status).toBe(400)
    const stranger = new Browser(h)
    const res = await unlink(browser, { accountId: plain.id, csrfToken: await stranger.csrfToken() }, false)
    expect(res.status).toBe(400)
    expect(await h.waysIn(userId)).toEqual(['oidc', 'plain'])
    expect(eventsSince(h, from)).toEqual([])
  })

  it('sends a session older than linkMaxAge to sign in again (ReauthRequired), and one without a session to sign in', async () => {
    const { browser, userId } = await twoWaysIn('grace')
    const plain = await h.wayIn(userId, 'plain')
    useClock(Math.floor(Date.now() / 1000) + 601)

    const res = await unlink(browser, { accountId: plain.id })
    expect(res.status).toBe(302)
    const signIn = new URL(res.headers.get('location')!)
    expect(`${signIn.origin}${signIn.pathname}`).toBe(`${h.base}/signin`)
    expect(Object.fromEntries(signIn.searchParams)).toEqual({
      error: 'ReauthRequired',
      callbackUrl: `${h.origin}/account`,
    })
    expect((await follow(browser, signIn.href)).text).toContain('For your security, sign in again to continue.')
    const json = await unlink(browser, { accountId: plain.id, json: 'true' })
    expect(json.status).toBe(401)
    expect(await h.waysIn(userId)).toEqual(['oidc', 'plain'])

    const nobody = await unlink(new Browser(h), { accountId: plain.id })
    expect(new URL(nobody.headers.get('location')!).searchParams.get('error')).toBe('SessionRequired')
    expect(await h.waysIn(userId)).toEqual(['oidc', 'plain'])

    // A new sign-in is recent: the unlink goes through.
    await signInAs(h, browser, 'oidc', 'grace')
    expect((await unlink(browser, { accountId: plain.id })).headers.get('location')).toBe(`${h.origin}/account`)
    expect(await h.waysIn(userId)).toEqual(['oidc'])
  })
})

describe('router.unlinkAccount(userId, accountId)', () => {
  it("answers true when it unlinked, false for an id that is not the user's, and throws LastSignInMethod for the last", async () => {
    const heidi = await twoWaysIn('heidi')
    const ivan = await signedIn(h, 'oidc', 'ivan')
    const [oidc, plain] = [await h.wayIn(heidi.userId, 'oidc'), await h.wayIn(heidi.userId, 'plain')]
    const ivans = await h.wayIn(ivan.userId, 'oidc')
    const from = h.events.length

    expect(await h.router.unlinkAccount(heidi.userId, ivans.id)).toBe(false)
    expect(await h.router.unlinkAccount(heidi.userId, 'no-such-account')).toBe(false)
    expect(await h.router.unlinkAccount(heidi.userId, plain.id)).toBe(true)
    expect(eventsSince(h, from)).toEqual([
      { name: 'accountUnlinked', message: { userId: heidi.userId, account: plain } },
    ])
    expect(await h.router.unlinkAccount(heidi.userId, plain.id)).toBe(false)

    const last = h.router.unlinkAccount(heidi.userId, oidc.id)
    await expect(last).rejects.toBeInstanceOf(AuthError)
    await expect(last).rejects.toMatchObject({ code: 'LastSignInMethod' })
    expect(await h.waysIn(heidi.userId)).toEqual(['oidc'])
    expect(await h.waysIn(ivan.userId)).toEqual(['oidc'])
    expect(eventsSince(h, from)).toHaveLength(1)
    // Heidi still signs in with what she has left.
    await signInAs(h, heidi.browser, 'oidc', 'heidi')
    expect(await h.whoami(heidi.browser)).toBe(heidi.userId)
  })
})
