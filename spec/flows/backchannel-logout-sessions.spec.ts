import session from 'express-session'
import { oidc } from '../../lib'
import { MAX_ENTRIES_PER_NAME } from '../../lib/features/oidc-logout/logout-index'
import { serve, type Served } from '../support/app'
import { Browser } from '../support/browser'
import { startHostileIssuer, type HostileIssuer } from '../support/hostile-issuer'

/**
 * Back-channel logout with database sessions in an app's own express-session store (no Redis): a
 * logout token with a `sid` ends exactly the sessions that provider session signed in, and another
 * device of the same user, signed in through another provider session, keeps its session; a token
 * with only a `sub` ends every session of the user. `events.backchannelLogout` says how many
 * sessions ended. Past the bound of sessions remembered per provider session, a logout ends every
 * session of the user: more than it names, never less. A sign-in through a provider session that
 * logged out while it was under way gives no session.
 */

const EVENT = 'http://schemas.openid.net/event/backchannel-logout'

let issuer: HostileIssuer
let app: Served
const events: unknown[] = []

beforeAll(async () => {
  issuer = await startHostileIssuer()
  app = await serve({
    providers: [
      oidc({ id: 'hostile', issuer: issuer.issuer, clientId: issuer.clientId, clientSecret: issuer.clientSecret }),
    ],
    session: { strategy: 'database', store: new session.MemoryStore() },
    events: { backchannelLogout: (message) => void events.push(message) },
    // Over fifty sign-ins from one address in the last spec.
    requestRateLimit: { limit: 1000 },
  })
})

afterAll(async () => {
  await app.close()
  await issuer.stop()
})

afterEach(() => issuer.reset())

let counter = 0

/** The provider's server posts a logout token naming `names` (its `sid`, its `sub`, or both). */
async function providerLogout(names: { sid?: string; sub?: string }): Promise<Response> {
  const now = Math.floor(Date.now() / 1000)
  const claims = { iss: issuer.issuer, aud: issuer.clientId, iat: now, jti: `jti-${now}-${counter++}` }
  const token = await issuer.sign({ ...claims, events: { [EVENT]: {} }, ...names }, { typ: 'logout+jwt' })
  return fetch(`${app.base}/backchannel-logout/hostile`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ logout_token: token }),
  })
}

/** A new browser signed in through the provider session `sid`. */
async function signedInThrough(sid: string, browser = new Browser(app)): Promise<Browser> {
  issuer.behave({ idTokenClaims: { sid } })
  expect((await browser.signIn('hostile')).status).toBe(302)
  expect((await browser.session()).user).toMatchObject({ email: 'alice@example.com' })
  return browser
}

it("a sid ends the sessions that provider session signed in, and not the user's others", async () => {
  const laptop = await signedInThrough('laptop-session')
  const phone = await signedInThrough('phone-session')

  expect((await providerLogout({ sid: 'laptop-session', sub: 'alice' })).status).toBe(200)
  expect(await laptop.session()).toEqual({})
  expect((await phone.session()).user).toMatchObject({ email: 'alice@example.com' })
  expect(events.at(-1)).toEqual({ provider: 'hostile', userIds: ['hostile:alice'], sessions: 1 })
  const logged = app.logs.filter((entry) => entry.event === 'signout').at(-1)
  expect(logged).toMatchObject({ provider: 'hostile', sessions: 1 })

  // The same sid again names nothing any more: 200, nothing else ends.
  expect((await providerLogout({ sid: 'laptop-session' })).status).toBe(200)
  expect((await phone.session()).user).toMatchObject({ email: 'alice@example.com' })
  expect(events.at(-1)).toEqual({ provider: 'hostile', userIds: [], sessions: 0 })
  await phone.signOut()
})

it('a sub alone ends every session of the user', async () => {
  const laptop = await signedInThrough('laptop-session-2')
  const phone = await signedInThrough('phone-session-2')

  expect((await providerLogout({ sub: 'alice' })).status).toBe(200)
  expect(await laptop.session()).toEqual({})
  expect(await phone.session()).toEqual({})
  expect(events.at(-1)).toEqual({ provider: 'hostile', userIds: ['hostile:alice'], sessions: null })
})

it('past the bound of sessions one provider session signed in, its logout ends every session of the user', async () => {
  const phone = await signedInThrough('phone-session-3')
  // One browser signing in again and again through one provider session: each sign-in a new session of ours.
  const laptop = await signedInThrough('laptop-session-3')
  for (let index = 0; index < MAX_ENTRIES_PER_NAME; index++) await signedInThrough('laptop-session-3', laptop)

  expect((await providerLogout({ sid: 'laptop-session-3' })).status).toBe(200)
  // Its latest session, beyond the bound, ends all the same (with every other session of the user).
  expect(await laptop.session()).toEqual({})
  expect(await phone.session()).toEqual({})
  expect(events.at(-1)).toMatchObject({ userIds: ['hostile:alice'], sessions: null })
})

it('a sign-in through a provider session that logged out meanwhile gives no session', async () => {
  const laptop = await signedInThrough('laptop-session-4')
  // The provider's logout arrives while a second sign-in through the same provider session completes.
  const authorization = await laptop.authorizationUrl('hostile')
  const callback = await laptop.login(authorization)
  expect((await providerLogout({ sid: 'laptop-session-4' })).status).toBe(200)
  issuer.behave({ idTokenClaims: { sid: 'laptop-session-4' } })
  const res = await laptop.returnTo(callback)
  expect(res.headers.get('location') ?? '').not.toContain('/welcome')
  expect(await laptop.session()).toEqual({})
  expect(app.logs.filter((entry) => entry.event === 'callback.error').at(-1)?.message).toContain('logged out')
  // A new session at the provider (a new sid) signs in as usual.
  await signedInThrough('laptop-session-5', laptop)
})
