import { grantCounts, revokeGrants } from '../support/idp'
import { Browser } from '../support/browser'
import { startTokenApp, type TokenApp } from '../support/token-harness'

// getAccessToken with cookie sessions (no Redis: one process): the provider's tokens travel sealed
// in the session cookie. Concurrent calls share one refresh; a request that still brings the cookie
// from before the refresh gets its successor (with rotation, spending the old refresh token again
// would revoke the grant); a grant revoked at the provider ends in RefreshAccessTokenError and the
// client session's `error`, and nothing of a token ever reaches the client session or a log.
jest.setTimeout(60_000)

let t: TokenApp

beforeAll(async () => {
  t = await startTokenApp()
})

afterAll(async () => {
  await t?.stop()
})

it('refreshes once for concurrent calls; a cookie from before the refresh gets the successor; nothing of a token leaks', async () => {
  const browser = await t.signedIn()
  const before = await grantCounts(t.idp)
  const oldCookie = browser.cookie('auth.session-token')!.value
  const answers = await Promise.all(Array.from({ length: 20 }, () => t.token(browser)))
  expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(200))
  const fresh = answers[0]!.body
  expect(new Set(answers.map((answer) => answer.body.accessToken))).toEqual(new Set([fresh.accessToken]))
  expect(fresh).toEqual({
    accessToken: expect.any(String),
    expiresAt: expect.any(Number),
    tokenType: 'Bearer',
    scope: expect.stringContaining('openid'),
  })
  expect(fresh.expiresAt! - Date.now() / 1000).toBeGreaterThan(3000)
  expect(await grantCounts(t.idp)).toEqual({ refresh: before.refresh + 1, revoked: 0 })

  // Another tab still holding the session cookie of before the refresh.
  const tab = new Browser(t.served)
  tab.jar.set(t.served.origin, `auth.session-token=${oldCookie}; Path=/; HttpOnly; SameSite=Lax`)
  expect((await t.token(tab)).body.accessToken).toBe(fresh.accessToken)
  expect(await grantCounts(t.idp)).toEqual({ refresh: before.refresh + 1, revoked: 0 })

  expect(JSON.stringify(await browser.session())).not.toContain(fresh.accessToken)
  expect(JSON.stringify(t.served.logs)).not.toContain(fresh.accessToken)
  expect(JSON.stringify(t.events)).not.toContain(fresh.accessToken)
  expect(t.events.at(-1)).toEqual({
    name: 'tokenRefreshed',
    message: { userId: 'idp:alice', provider: 'idp', expiresAt: fresh.expiresAt },
  })
})

it('a grant revoked at the provider: RefreshAccessTokenError, the client session says so, the session stays', async () => {
  const browser = await t.signedIn()
  await revokeGrants(t.idp)
  expect(await t.token(browser)).toEqual({ status: 401, body: { error: 'RefreshAccessTokenError' } })
  expect(await browser.session()).toMatchObject({
    user: { email: 'alice@example.com' },
    error: 'RefreshAccessTokenError',
  })
  // Asked again: refused at once, without asking the provider.
  const counts = await grantCounts(t.idp)
  expect(await t.token(browser)).toEqual({ status: 401, body: { error: 'RefreshAccessTokenError' } })
  expect(await grantCounts(t.idp)).toEqual(counts)
  expect(t.events.at(-1)).toMatchObject({
    name: 'tokenRefreshFailed',
    message: { userId: 'idp:alice', provider: 'idp' },
  })
  expect(t.served.logs.find((entry) => entry.event === 'tokens.refresh_failed')?.message).toMatch(/invalid_grant/)
})

it('a token still valid is answered as it is; nobody signed in: null', async () => {
  const browser = await t.signedIn()
  const before = await grantCounts(t.idp)
  const first = await t.token(browser, '?minValidity=0')
  expect(first.status).toBe(200)
  expect(first.body.expiresAt! - Date.now() / 1000).toBeLessThanOrEqual(30)
  expect(await grantCounts(t.idp)).toEqual(before)
  expect(await t.token(new Browser(t.served))).toEqual({ status: 404, body: {} })
})

it('refresh: force refreshes a token that looks valid', async () => {
  const browser = await t.signedIn()
  const valid = (await t.token(browser)).body.accessToken
  const before = await grantCounts(t.idp)
  const forced = await t.token(browser, '?force=1')
  expect(forced.status).toBe(200)
  expect(forced.body.accessToken).not.toBe(valid)
  expect(await grantCounts(t.idp)).toEqual({ refresh: before.refresh + 1, revoked: 0 })
})

it('signing out the other devices keeps this browser’s tokens', async () => {
  const browser = await t.signedIn()
  const other = await t.signedIn()
  const before = (await t.token(browser)).body.accessToken
  expect(before).toEqual(expect.any(String))
  expect((await browser.signOut({ others: 'true' })).status).toBe(302)
  expect(await t.token(browser)).toMatchObject({ status: 200, body: { accessToken: before } })
  expect((await t.token(other)).status).toBe(404)
})
