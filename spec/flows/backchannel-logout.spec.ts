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
  ['cookie sessions', 'cookie:', { session: { revocationDelay: 1 } }],
  ['database sessions in Redis', 'database:', { session: { strategy: 'database' as const } }],
])('back-channel logout with %s on two instances', (name, keys, sessionOptions: AuthOptions) => {
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
})
