import type { Redis } from 'ioredis'
import { oidc, type AuthOptions } from '../../lib'
import { freeSite, serve, type Served } from '../support/app'
import { Browser } from '../support/browser'
import { findForm } from '../support/forms'
import { startIdp, type Idp } from '../support/idp'
import { idpLogin } from '../support/idp-login'
import { sharedRedis, type SharedRedis } from '../support/redis'

/**
 * OpenID Connect back-channel logout with the real thing: oidc-provider with its backchannelLogout
 * feature on, the client registered with our `backchannel_logout_uri`. A user signed in through
 * two instances of one app (one Redis) signs out at the provider; the provider's own server posts
 * its logout token to one instance, and both refuse the session within a second (cookie sessions:
 * `session.revocationDelay: 1`; database sessions: deleted), while another user's session lives on.
 * The provider's `sid` names the sessions it signed in: a second device of the same user, signed in
 * through another session at the provider, keeps its database session; cookie sessions cannot be
 * told apart, and every one of the user's ends.
 */

let redis: SharedRedis
let client: Redis
let prefix: string

beforeAll(async () => {
  redis = await sharedRedis()
  client = redis.client()
  prefix = redis.prefix('backchannel')
})

afterAll(async () => {
  await redis.deleteKeys(prefix)
  await redis.close()
})

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Signs out at the test IdP as its own page does: GET its end-session endpoint, confirm the form. */
async function signOutAtIdp(browser: Browser, issuer: string): Promise<Response> {
  const page = await browser.jar.fetch(`${issuer}/session/end`, {}, { crossSite: true })
  const form = findForm(await page.text(), { id: 'op.logoutForm' })
  if (!form) throw new Error(`the IdP showed no logout form (${page.status})`)
  const body = new URLSearchParams({ ...form.fields, logout: 'yes' })
  return browser.jar.fetch(new URL(form.action, issuer), { method: 'POST', body })
}

describe.each([
  ['cookie sessions', 'cookie:', { session: { revocationDelay: 1 } }, 'per user'],
  ['database sessions in Redis', 'database:', { session: { strategy: 'database' as const } }, 'per session'],
])('back-channel logout with %s on two instances', (name, keys, sessionOptions: AuthOptions, ends) => {
  let idp: Idp
  let one: Served
  let two: Served

  beforeAll(async () => {
    const [siteOne, siteTwo] = [await freeSite(), await freeSite()]
    idp = await startIdp({
      backchannelLogout: true,
      users: [
        { accountId: 'alice', name: 'Alice Example', email: 'alice@example.com' },
        { accountId: 'bob', name: 'Bob Example', email: 'bob@example.com' },
      ],
      clients: [
        {
          client_id: 'app',
          client_secret: 'app-secret',
          redirect_uris: [`${siteOne.base}/callback/oidc`, `${siteTwo.base}/callback/oidc`],
          token_endpoint_auth_method: 'client_secret_post',
          backchannel_logout_uri: `${siteOne.base}/backchannel-logout/oidc`,
          backchannel_logout_session_required: true,
        },
      ],
    })
    const options = (): AuthOptions => ({
      providers: [oidc({ id: 'oidc', issuer: idp.issuer, clientId: 'app', clientSecret: 'app-secret' })],
      redis: client,
      redisKeyPrefix: `${prefix}${keys}`,
      ...sessionOptions,
    })
    one = await serve(options(), { site: siteOne })
    two = await serve(options(), { site: siteTwo })
  })

  afterAll(async () => {
    await one.close()
    await two.close()
    await idp.stop()
  })

  it('ends the session on both instances within a second, and no one else’s', async () => {
    const alice = new Browser(one)
    // The same browser at the other instance: one cookie jar, one host (localhost).
    const aliceAtTwo = new Browser(two, alice.jar)
    const bob = new Browser(two)
    expect((await alice.signIn('oidc')).status).toBe(302)
    await bob.returnTo(await idpLogin(await bob.authorizationUrl('oidc'), { jar: bob.jar, login: 'bob' }))
    expect((await alice.session()).user).toMatchObject({ email: 'alice@example.com' })
    expect((await aliceAtTwo.session()).user).toMatchObject({ email: 'alice@example.com' })
    expect((await bob.session()).user).toMatchObject({ email: 'bob@example.com' })

    const confirmed = await signOutAtIdp(alice, idp.issuer)
    expect(confirmed.status).toBeLessThan(400)
    const called = Date.now()
    // The provider's server called instance one before it answered its own page.
    expect(one.logs.filter((entry) => entry.event === 'backchannel_logout')).toEqual([
      expect.objectContaining({ provider: 'oidc', users: 1 }),
    ])

    const refusedAt: Record<string, number> = {}
    while (Object.keys(refusedAt).length < 2 && Date.now() - called < 5000) {
      for (const [name, browser] of [
        ['one', alice],
        ['two', aliceAtTwo],
      ] as const) {
        if (refusedAt[name] === undefined && Object.keys(await browser.session()).length === 0)
          refusedAt[name] = Date.now() - called
      }
      await sleep(20)
    }
    // The figure the issue asks for (docs: within session.revocationDelay on other instances).
    process.stdout.write(`back-channel logout (${name}): refused after ${JSON.stringify(refusedAt)} ms\n`)
    expect(refusedAt.one).toBeDefined()
    expect(refusedAt.two).toBeDefined()
    expect(Math.max(refusedAt.one!, refusedAt.two!)).toBeLessThanOrEqual(1000)
    expect((await bob.session()).user).toMatchObject({ email: 'bob@example.com' })

    // Signing in again asks the provider again, and gives a session both instances accept.
    expect((await alice.signIn('oidc')).status).toBe(302)
    expect((await alice.session()).user).toMatchObject({ email: 'alice@example.com' })
    expect((await aliceAtTwo.session()).user).toMatchObject({ email: 'alice@example.com' })
  })

  it(`ends the sessions the provider's session signed in, ${ends}`, async () => {
    // Two devices of one user, each with its own cookie jar, so its own session at the provider (its own sid).
    const laptop = new Browser(one)
    const laptopAtTwo = new Browser(two, laptop.jar)
    const phone = new Browser(two)
    const phoneAtOne = new Browser(one, phone.jar)
    expect((await laptop.signIn('oidc')).status).toBe(302)
    expect((await phone.signIn('oidc')).status).toBe(302)
    for (const device of [laptop, laptopAtTwo, phone, phoneAtOne])
      expect((await device.session()).user).toMatchObject({ email: 'alice@example.com' })

    expect((await signOutAtIdp(laptop, idp.issuer)).status).toBeLessThan(400)

    const deadline = Date.now() + 3000
    while (Object.keys(await laptopAtTwo.session()).length > 0 && Date.now() < deadline) await sleep(20)
    expect(await laptop.session()).toEqual({})
    expect(await laptopAtTwo.session()).toEqual({})
    if (ends === 'per session') {
      // The phone signed in through another session at the provider: still signed in, on both instances.
      expect((await phone.session()).user).toMatchObject({ email: 'alice@example.com' })
      expect((await phoneAtOne.session()).user).toMatchObject({ email: 'alice@example.com' })
    } else {
      // A cookie session cannot be ended on its own: every one of the user's is refused from now on.
      expect(await phone.session()).toEqual({})
      expect(await phoneAtOne.session()).toEqual({})
    }
    // The log says how many sessions ended, when they were ended one by one.
    const accepted = one.logs.filter((entry) => entry.event === 'backchannel_logout')
    expect(accepted.at(-1)).toMatchObject({ provider: 'oidc', users: 1, sessions: ends === 'per session' ? 1 : null })
  })
})
