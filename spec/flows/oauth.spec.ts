import { Browser } from '../support/browser'
import { startHarness, type Harness } from '../support/oauth-harness'

let h: Harness
beforeAll(async () => {
  h = await startHarness()
})
afterAll(() => h?.stop())

const errorPage = (code: string) => `${h.base}/error?error=${code}`

describe('OAuth sign-in against a real OpenID Connect provider', () => {
  it('signs in through OIDC: the authorization request, the callback, the session, then sign-out', async () => {
    const browser = new Browser(h)
    const authorization = await browser.authorizationUrl('oidc')
    const params = authorization.searchParams
    expect(authorization.origin).toBe(h.idp.issuer)
    expect(params.get('response_type')).toBe('code')
    expect(params.get('client_id')).toBe('app')
    expect(params.get('redirect_uri')).toBe(`${h.base}/callback/oidc`)
    expect(params.get('scope')).toBe('openid email profile')
    expect(params.get('code_challenge_method')).toBe('S256')
    expect(params.get('code_challenge')).toMatch(/^[\w-]{43}$/)
    expect(params.get('state')).toMatch(/^[\w-]+\.[\w-]{43}$/)
    expect(params.get('nonce')).toMatch(/^[\w-]{20,}$/)
    expect(browser.flowCookies()).toHaveLength(1)
    const csrfBefore = browser.cookie('auth.csrf-token')!.value

    const callback = await browser.login(authorization)
    expect(callback.searchParams.get('iss')).toBe(h.idp.issuer)
    const done = await browser.returnTo(callback)
    expect(done.status).toBe(302)
    expect(done.headers.get('location')).toBe(`${h.origin}/welcome`)
    expect(done.headers.get('cache-control')).toBe('private, no-cache, no-store')
    expect(await browser.session()).toEqual({
      user: { name: 'Alice Example', email: 'alice@example.com', image: expect.any(String) },
      expires: expect.any(String),
    })
    expect(browser.flowCookies()).toEqual([])
    expect(browser.cookie('auth.csrf-token')!.value).not.toBe(csrfBefore)
    expect(browser.cookie('auth.session-token')).toMatchObject({ httpOnly: true, sameSite: 'Lax' })
    expect(h.logs).toContainEqual(
      expect.objectContaining({ event: 'session.created', userId: 'oidc:alice', provider: 'oidc' }),
    )

    const signOut = await browser.signOut()
    expect(signOut.status).toBe(302)
    expect(await browser.session()).toEqual({})
  })

  it('signs in through a plain OAuth 2 provider (profile from userinfo)', async () => {
    const browser = new Browser(h)
    const authorization = await browser.authorizationUrl('plain')
    expect(authorization.searchParams.get('nonce')).toBeNull()
    expect((await browser.returnTo(await browser.login(authorization))).headers.get('location')).toBe(
      `${h.origin}/welcome`,
    )
    expect(await browser.session()).toMatchObject({ user: { name: 'Alice Example', email: 'alice@example.com' } })
  })

  it('signs in through any Passport strategy (passportStrategy()), mapping its normalized profile', async () => {
    const browser = new Browser(h)
    const authorization = await browser.authorizationUrl('passport')
    expect(authorization.searchParams.get('code_challenge_method')).toBe('S256')
    expect(authorization.searchParams.get('redirect_uri')).toBe(`${h.base}/callback/passport`)
    expect((await browser.returnTo(await browser.login(authorization))).headers.get('location')).toBe(
      `${h.origin}/welcome`,
    )
    expect(await browser.session()).toMatchObject({ user: { name: 'Alice Example', email: 'alice@example.com' } })
    expect(h.logs).toContainEqual(expect.objectContaining({ event: 'session.created', userId: 'passport:alice' }))
  })

  it('answers {url} in JSON mode, and passes extra parameters on without letting them replace protected ones', async () => {
    const browser = new Browser(h)
    const res = await browser.startSignIn('oidc', {
      json: true,
      query:
        '?prompt=login&login_hint=alice&state=evil&redirect_uri=https%3A%2F%2Fevil.example&client_id=evil&nonce=evil&code_challenge=evil',
    })
    expect(res.status).toBe(200)
    const url = new URL(((await res.json()) as { url: string }).url)
    expect(url.searchParams.get('prompt')).toBe('login')
    expect(url.searchParams.get('login_hint')).toBe('alice')
    for (const name of ['state', 'redirect_uri', 'client_id', 'nonce', 'code_challenge'])
      expect(url.searchParams.get(name)).not.toMatch(/evil/)
  })

  it('ends on AccessDenied when the user declines', async () => {
    const browser = new Browser(h)
    const callback = await browser.login(await browser.authorizationUrl('oidc'), 'deny')
    expect(callback.searchParams.get('error')).toBe('access_denied')
    expect((await browser.returnTo(callback)).headers.get('location')).toBe(errorPage('AccessDenied'))
    expect(await browser.session()).toEqual({})
    expect(browser.flowCookies()).toEqual([])
  })

  describe('refuses a callback, signing nobody in, when', () => {
    async function expectRefused(browser: Browser, callback: URL | string) {
      const res = await browser.returnTo(callback)
      expect(res.status).toBe(302)
      expect(res.headers.get('location')).toBe(errorPage('OAuthCallback'))
      expect(browser.cookie('auth.session-token')).toBeUndefined()
    }

    it('the state is missing', async () => {
      const browser = new Browser(h)
      const callback = await browser.login(await browser.authorizationUrl('oidc'))
      callback.searchParams.delete('state')
      await expectRefused(browser, callback)
      expect(browser.flowCookies()).toHaveLength(1)
    })

    it('the state does not match', async () => {
      const browser = new Browser(h)
      const callback = await browser.login(await browser.authorizationUrl('oidc'))
      const state = callback.searchParams.get('state')!
      callback.searchParams.set('state', `${state.slice(0, -2)}${state.endsWith('AA') ? 'BB' : 'AA'}`)
      await expectRefused(browser, callback)
    })

    it('the flow cookie is missing', async () => {
      const browser = new Browser(h)
      const callback = await browser.login(await browser.authorizationUrl('oidc'))
      for (const cookie of browser.flowCookies()) browser.jar.set(h.origin, `${cookie.name}=; Path=/; Max-Age=0`)
      await expectRefused(browser, callback)
    })

    it('the flow was started for another provider (same issuer, another client)', async () => {
      const browser = new Browser(h)
      const callback = await browser.login(await browser.authorizationUrl('second'))
      await expectRefused(browser, callback.href.replace('/callback/second', '/callback/oidc'))
    })

    it('the callback is replayed after a completed sign-in, in the same browser or another', async () => {
      const browser = new Browser(h)
      const callback = await browser.login(await browser.authorizationUrl('oidc'))
      const flow = browser.flowCookies()[0]!
      const csrf = browser.cookie('auth.csrf-token')!
      expect((await browser.returnTo(callback)).headers.get('location')).toBe(`${h.origin}/welcome`)
      const before = h.logs.length
      // The same browser: its flow cookie is spent, so the flow itself is refused.
      expect((await browser.returnTo(callback)).headers.get('location')).toBe(errorPage('OAuthCallback'))
      expect(h.logs.slice(before).map((entry) => entry.message)).toEqual([
        'provider oidc: the state or the flow cookie did not match',
      ])
      // Another browser holding copies of both cookies: the provider refuses the spent code.
      const attacker = new Browser(h)
      attacker.jar.set(h.origin, `${flow.name}=${flow.value}; Path=/`)
      attacker.jar.set(h.origin, `${csrf.name}=${csrf.value}; Path=/`)
      await expectRefused(attacker, callback)
      expect(String(h.logs.at(-1)?.message)).toMatch(/invalid_grant/)
    })

    it('the PKCE verifier does not belong to the code', async () => {
      const browser = new Browser(h)
      const tabA = await browser.authorizationUrl('oidc')
      const tabB = await browser.authorizationUrl('oidc')
      const codeA = (await browser.login(tabA)).searchParams.get('code')!
      const callbackB = await browser.login(tabB)
      callbackB.searchParams.set('code', codeA)
      await expectRefused(browser, callbackB)
      expect(h.logs.some((entry) => String(entry.message).includes('invalid_grant'))).toBe(true)
    })

    const reasonFor = (provider: string) =>
      h.logs
        .filter(
          (entry) => entry.event === 'callback.error' && String(entry.message).startsWith(`provider ${provider}:`),
        )
        .map((entry) => entry.message)
        .join('\n')

    it('the token endpoint is unreachable', async () => {
      const browser = new Browser(h)
      await expectRefused(browser, await browser.login(await browser.authorizationUrl('deadtoken')))
      expect(reasonFor('deadtoken')).toMatch(/Failed to obtain access token/)
    })

    it('the client secret is wrong', async () => {
      const browser = new Browser(h)
      await expectRefused(browser, await browser.login(await browser.authorizationUrl('wrongsecret')))
      expect(reasonFor('wrongsecret')).toMatch(/invalid_client/)
    })
  })

  it('lets two tabs sign in at once, completing in either order', async () => {
    const browser = new Browser(h)
    const tabA = await browser.authorizationUrl('oidc', { callbackUrl: '/welcome?tab=a' })
    const tabB = await browser.authorizationUrl('plain', { callbackUrl: '/welcome?tab=b' })
    const callbackA = await browser.login(tabA)
    const callbackB = await browser.login(tabB)
    expect((await browser.returnTo(callbackB)).headers.get('location')).toBe(`${h.origin}/welcome?tab=b`)
    expect((await browser.returnTo(callbackA)).headers.get('location')).toBe(`${h.origin}/welcome?tab=a`)
    expect(await browser.session()).toMatchObject({ user: { email: 'alice@example.com' } })
  })

  it('starts no flow without a valid CSRF token, and answers 404 for an unknown provider', async () => {
    const browser = new Browser(h)
    const res = await browser.jar.fetch(`${h.base}/signin/oidc`, {
      method: 'POST',
      body: new URLSearchParams({ csrfToken: 'forged' }),
    })
    expect(res.headers.get('location')).toBe(`${h.base}/signin?csrf=true`)
    expect(browser.flowCookies()).toEqual([])
    expect((await browser.startSignIn('nope')).status).toBe(404)
    const json = await browser.startSignIn('nope', { json: true })
    expect(json.status).toBe(404)
    expect(await json.json()).toEqual({ url: `${h.base}/signin?error=Signin` })
  })

  it('ends on OAuthSignin, with a log line, when the issuer cannot be reached', async () => {
    const browser = new Browser(h)
    const res = await browser.startSignIn('offline')
    expect(res.headers.get('location')).toBe(errorPage('OAuthSignin'))
    // An outage, not the configuration: a warning, and the next sign-in tries again.
    expect(h.logs).toContainEqual(
      expect.objectContaining({ level: 'warn', event: 'provider.discovery_failed', cause: 'unreachable' }),
    )
  })

  it('never logs a code, a state, a cookie or a secret, on success or failure', async () => {
    const failing = new Browser(h)
    const refused = await failing.login(await failing.authorizationUrl('wrongsecret'))
    await failing.returnTo(refused)
    const succeeding = new Browser(h)
    const accepted = await succeeding.login(await succeeding.authorizationUrl('oidc'))
    expect((await succeeding.returnTo(accepted)).headers.get('location')).toBe(`${h.origin}/welcome`)
    const logged = JSON.stringify(h.logs)
    for (const callback of [refused, accepted]) {
      expect(logged).not.toContain(callback.searchParams.get('code')!)
      expect(logged).not.toContain(callback.searchParams.get('state')!)
    }
    expect(logged).not.toContain('app-secret')
    expect(logged).not.toContain('not-the-secret')
    expect(logged).not.toContain(succeeding.cookie('auth.session-token')!.value.slice(0, 40))
    expect(logged).not.toContain(succeeding.cookie('auth.csrf-token')!.value.split('|')[0]!)
  })
})
