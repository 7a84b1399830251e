import type { Redis } from 'ioredis'
import { oidc, type AuthOptions } from '../../lib'
import { freeSite, serve, type Served } from '../support/app'
import { Browser } from '../support/browser'
import { findForm } from '../support/forms'
import { startHostileIssuer } from '../support/hostile-issuer'
import { startIdp, type Idp } from '../support/idp'
import { idpLogin } from '../support/idp-login'
import { sharedRedis, type SharedRedis } from '../support/redis'

/**
 * RP-initiated logout with oidc-provider: with `logout: 'provider'`, POST /signout ends our session
 * first, then sends the browser to the provider's end_session_endpoint with the sign-in's ID token
 * as id_token_hint, our client_id, our post_logout_redirect_uri and a state; the provider signs the
 * user out and sends the browser back, and our route goes on to the callbackUrl. Signing in again
 * then asks for the password. JSON mode answers the provider's URL; a state that is not the
 * browser's own ends on the error page; a provider without an end-session endpoint signs out here only.
 */

let redis: SharedRedis
let client: Redis
let prefix: string

beforeAll(async () => {
  redis = await sharedRedis()
  client = redis.client()
  prefix = redis.prefix('provider-logout')
})

afterAll(async () => {
  await redis.deleteKeys(prefix)
  await redis.close()
})

/** The browser at the provider's end-session page: confirms, and is sent back (the URL, not followed). */
async function confirmAtIdp(browser: Browser, endSession: URL): Promise<URL> {
  const page = await browser.jar.fetch(endSession, {}, { crossSite: true })
  const form = findForm(await page.text(), { id: 'op.logoutForm' })
  if (!form) throw new Error(`the IdP showed no logout form (${page.status})`)
  let res = await browser.jar.fetch(new URL(form.action, endSession), {
    method: 'POST',
    body: new URLSearchParams({ ...form.fields, logout: 'yes' }),
  })
  let location = new URL(res.headers.get('location') ?? '', endSession)
  while (res.status >= 300 && res.status < 400 && location.origin === endSession.origin) {
    res = await browser.jar.fetch(location)
    location = new URL(res.headers.get('location') ?? '', endSession)
  }
  return location
}

describe.each([
  ['cookie sessions, the ID token in the logout cookie', (): AuthOptions => ({})],
  [
    'database sessions in Redis, the ID token in Redis',
    (): AuthOptions => ({ redis: client, redisKeyPrefix: prefix, session: { strategy: 'database' } }),
  ],
])('logout: provider with %s', (name, extra) => {
  const inRedis = name.includes('Redis')
  let idp: Idp
  let app: Served

  beforeAll(async () => {
    const site = await freeSite()
    idp = await startIdp({
      clients: [
        {
          client_id: 'app',
          client_secret: 'app-secret',
          redirect_uris: [`${site.base}/callback/oidc`],
          post_logout_redirect_uris: [`${site.base}/signout-callback/oidc`],
          token_endpoint_auth_method: 'client_secret_post',
        },
      ],
    })
    app = await serve(
      {
        providers: [
          oidc({ id: 'oidc', issuer: idp.issuer, clientId: 'app', clientSecret: 'app-secret', logout: 'provider' }),
        ],
        ...extra(),
      },
      { site },
    )
  })

  afterAll(async () => {
    await app.close()
    await idp.stop()
  })

  it('signs out here, then at the provider, comes back to the callbackUrl, and the next sign-in asks for the password', async () => {
    const browser = new Browser(app)
    await browser.signIn('oidc')
    expect((await browser.session()).user).toMatchObject({ email: 'alice@example.com' })

    expect(browser.cookie('auth.session-token-logout')).toBeDefined()
    const hints = () => client.keys(`${prefix}bcl:hint:*`)
    if (inRedis) expect(await hints()).toHaveLength(1)
    // Signing in again in the same browser keeps only the newest ID token.
    await browser.signIn('oidc')
    if (inRedis) expect(await hints()).toHaveLength(1)

    const res = await browser.signOut({ callbackUrl: '/welcome' })
    expect(res.status).toBe(302)
    expect(browser.cookie('auth.session-token-logout')).toBeUndefined()
    if (inRedis) expect(await hints()).toHaveLength(0)
    const endSession = new URL(res.headers.get('location')!)
    expect(endSession.origin).toBe(new URL(idp.issuer).origin)
    expect(endSession.searchParams.get('client_id')).toBe('app')
    expect(endSession.searchParams.get('post_logout_redirect_uri')).toBe(`${app.base}/signout-callback/oidc`)
    expect(endSession.searchParams.get('id_token_hint')).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/)
    expect(endSession.searchParams.get('state')).toBeTruthy()
    // Ours ended first, before the browser reached the provider.
    expect(await browser.session()).toEqual({})
    // The ID token goes to the provider, never to a log entry.
    expect(JSON.stringify(app.logs)).not.toContain(endSession.searchParams.get('id_token_hint')!.split('.')[2])
    expect(app.logs.filter((entry) => entry.event === 'signout.provider')).toEqual([
      expect.objectContaining({ provider: 'oidc', idTokenHint: true }),
    ])

    const back = await confirmAtIdp(browser, endSession)
    expect(`${back.origin}${back.pathname}`).toBe(`${app.base}/signout-callback/oidc`)
    const landed = await browser.returnTo(back)
    expect(landed.status).toBe(302)
    expect(landed.headers.get('location')).toBe(`${app.origin}/welcome`)

    // The provider's session is gone: it shows its login form again.
    await expect(idpLogin(await browser.authorizationUrl('oidc'), { jar: browser.jar })).rejects.toThrow(
      /asks for a login/,
    )
  })

  it("answers the provider's logout URL in JSON mode (the NextAuth client's signOut())", async () => {
    const browser = new Browser(app)
    await browser.signIn('oidc')
    const res = await browser.signOut({ callbackUrl: '/welcome', json: 'true' })
    expect(res.status).toBe(200)
    const { url } = (await res.json()) as { url: string }
    expect(new URL(url).origin).toBe(new URL(idp.issuer).origin)
    expect(new URL(url).searchParams.get('state')).toBeTruthy()
    expect(await browser.session()).toEqual({})
  })

  it("sends a state that is not this browser's own to the error page", async () => {
    const browser = new Browser(app)
    await browser.signIn('oidc')
    const endSession = new URL((await browser.signOut({ callbackUrl: '/welcome' })).headers.get('location')!)
    const stranger = new Browser(app)
    await stranger.csrfToken()
    const res = await stranger.returnTo(
      `${app.base}/signout-callback/oidc?state=${endSession.searchParams.get('state')}`,
    )
    expect(res.status).toBe(302)
    expect(res.headers.get('location')).toBe(`${app.base}/error?error=Default`)
  })
})

it('signs out here only, and says so, for a provider without an end-session endpoint', async () => {
  const issuer = await startHostileIssuer()
  const app = await serve({
    providers: [
      oidc({
        id: 'bare',
        issuer: issuer.issuer,
        clientId: issuer.clientId,
        clientSecret: issuer.clientSecret,
        logout: 'provider',
      }),
    ],
  })
  try {
    const browser = new Browser(app)
    await browser.signIn('bare')
    expect((await browser.session()).user).toBeDefined()
    const res = await browser.signOut({ callbackUrl: '/welcome' })
    expect(res.headers.get('location')).toBe(`${app.origin}/welcome`)
    expect(await browser.session()).toEqual({})
    expect(app.logs.map((entry) => entry.message).join('\n')).toMatch(
      /bare: `logout: 'provider'` but its discovery names no end_session_endpoint/,
    )
  } finally {
    await app.close()
    await issuer.stop()
  }
})
