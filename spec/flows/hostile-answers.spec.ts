import { oidc, type ProviderUser } from '../../lib'
import { serve, type Served } from '../support/app'
import { Browser } from '../support/browser'
import { startHostileIssuer, type HostileIssuer } from '../support/hostile-issuer'

// What the app's own code answers at the end of a sign-in: the provider's profile mapper and the
// signIn callback. A mapper that gives no account id, and a signIn answer that is not exactly one
// the docs list, refuse the sign-in; the control cases sign in, so each refusal is the check's.
let issuer: HostileIssuer
let served: Served
let mapProfile: (profile: Record<string, unknown>) => unknown
let answerSignIn: () => unknown
let onSignIn: () => void

beforeAll(async () => {
  issuer = await startHostileIssuer()
  served = await serve({
    providers: [
      oidc({
        id: 'hostile',
        name: 'Hostile',
        issuer: issuer.issuer,
        clientId: issuer.clientId,
        clientSecret: issuer.clientSecret,
        profile: (profile) => mapProfile(profile) as ProviderUser,
      }),
    ],
    callbacks: { signIn: () => answerSignIn() as boolean },
    events: { signIn: () => onSignIn() },
  })
})
beforeEach(() => {
  mapProfile = (profile) => ({ id: String(profile.sub), name: 'Alice Example' })
  answerSignIn = () => true
  onSignIn = () => {}
  served.logs.length = 0
})
afterAll(async () => {
  await served.close()
  await issuer.stop()
})

async function signIn(): Promise<{ browser: Browser; res: Response }> {
  const browser = new Browser(served)
  return { browser, res: await browser.signIn('hostile') }
}

function lastCallbackError() {
  return served.logs.filter((entry) => entry.event === 'callback.error').at(-1)
}

async function expectRefusedWith(error: string, reason: string | RegExp) {
  const { browser, res } = await signIn()
  expect(res.status).toBe(302)
  expect(res.headers.get('location')).toBe(`${served.base}/error?error=${error}`)
  expect(browser.cookie('auth.session-token')).toBeUndefined()
  expect(lastCallbackError()?.message).toMatch(reason)
}

describe("the provider's profile mapper", () => {
  it('signs in with the account id it gives', async () => {
    const { browser, res } = await signIn()
    expect(res.headers.get('location')).toBe(`${served.origin}/welcome`)
    expect(await browser.session()).toMatchObject({ user: { name: 'Alice Example' } })
    expect(served.logs.at(-1)).toMatchObject({ event: 'session.created', userId: 'hostile:alice', level: 'info' })
  })

  it.each([
    ['null', null],
    ['a string', 'alice'],
    ['no id', { name: 'Alice' }],
    ['a number id', { id: 42 }],
    ['an empty id', { id: '' }],
  ])('refuses the sign-in when it answers %s', async (_case, answer) => {
    mapProfile = () => answer
    await expectRefusedWith('OAuthCallback', 'provider hostile: the profile has no account id')
  })

  it('refuses the sign-in when it throws, and logs why', async () => {
    mapProfile = () => {
      throw new Error('no such user')
    }
    await expectRefusedWith('OAuthCallback', "provider hostile: the provider's profile mapper threw: no such user")
  })
})

describe('the signIn callback', () => {
  it.each([
    ['{ userId }', { userId: 'user-7' }, 'user-7'],
    ['{ data }', { data: { plan: 'pro' } }, 'hostile:alice'],
  ])('signs in when it answers %s', async (_case, answer, userId) => {
    answerSignIn = () => answer
    const { browser } = await signIn()
    expect(browser.cookie('auth.session-token')).toBeDefined()
    expect(served.logs.at(-1)).toMatchObject({ event: 'session.created', userId })
  })

  it('refuses with AccessDenied, and no warning, when it answers false', async () => {
    answerSignIn = () => false
    const { browser, res } = await signIn()
    expect(res.headers.get('location')).toBe(`${served.base}/error?error=AccessDenied`)
    expect(browser.cookie('auth.session-token')).toBeUndefined()
    expect(lastCallbackError()).toBeUndefined()
  })

  it.each([
    ['a key it does not know beside userId', { userId: 'user-7', role: 'admin' }],
    ['an empty userId', { userId: '' }],
    ['a userId that is not a string', { userId: 7 }],
  ])('refuses with AccessDenied, logged, when it answers %s', async (_case, answer) => {
    answerSignIn = () => answer
    await expectRefusedWith('AccessDenied', /callbacks\.signIn answered an object, so the sign-in was refused/)
  })
})

describe('the signIn event', () => {
  it('signs in even when it throws, and logs that it threw', async () => {
    onSignIn = () => {
      throw new Error('the audit log is down')
    }
    const { browser, res } = await signIn()
    expect(res.headers.get('location')).toBe(`${served.origin}/welcome`)
    expect(browser.cookie('auth.session-token')).toBeDefined()
    expect(served.logs.find((entry) => entry.event === 'event.error')).toMatchObject({
      level: 'error',
      message: 'events.signIn threw: the audit log is down',
    })
  })
})

describe('a callback with a parameter given twice', () => {
  it('hands the provider strategy the first value, the one the package checked', async () => {
    const browser = new Browser(served)
    const callback = await browser.login(await browser.authorizationUrl('hostile'))
    callback.searchParams.append('code', 'a-code-the-issuer-never-gave')
    const res = await browser.returnTo(callback)
    expect(res.headers.get('location')).toBe(`${served.origin}/welcome`)
    expect(browser.cookie('auth.session-token')).toBeDefined()
  })
})

describe('the callback route, before any flow', () => {
  it('logs a user who declined at the provider as info, and a provider error as a warning', async () => {
    const callback = (query: string) => fetch(`${served.base}/callback/hostile?${query}`, { redirect: 'manual' })
    const declined = await callback('error=access_denied&state=x')
    expect(declined.headers.get('location')).toBe(`${served.base}/error?error=AccessDenied`)
    expect(lastCallbackError()).toMatchObject({ level: 'info', message: 'provider hostile: the user declined' })
    const failed = await callback('error=server_error&state=x')
    expect(failed.headers.get('location')).toBe(`${served.base}/error?error=OAuthCallback`)
    expect(lastCallbackError()).toMatchObject({
      level: 'warn',
      message: 'provider hostile: the provider answered with an error',
    })
  })

  it('answers 404 for a provider it does not have', async () => {
    const res = await fetch(`${served.base}/callback/nobody?code=x&state=x`, { redirect: 'manual' })
    expect(res.status).toBe(404)
  })
})

describe('a provider whose issuer cannot be reached', () => {
  it('sends the sign-in to OAuthSignin, and logs why', async () => {
    const gone = await serve({
      providers: [oidc({ id: 'gone', name: 'Gone', issuer: 'http://127.0.0.1:9', clientId: 'c', clientSecret: 's' })],
    })
    try {
      const res = await new Browser(gone).startSignIn('gone')
      expect(res.status).toBe(302)
      expect(res.headers.get('location')).toBe(`${gone.base}/error?error=OAuthSignin`)
      // Once, where discovery failed: not again as the sign-in's own failure.
      expect(gone.logs.filter((entry) => entry.event === 'callback.error')).toEqual([])
      expect(gone.logs.filter((entry) => entry.event === 'provider.discovery_failed')).toEqual([
        expect.objectContaining({
          level: 'warn',
          message: expect.stringMatching(
            /^provider gone: OpenID Connect discovery at http:\/\/127\.0\.0\.1:9 failed: /,
          ) as string,
        }),
      ])
    } finally {
      await gone.close()
    }
  })
})

describe('a token endpoint that refuses the client', () => {
  it('ends on OAuthCallback, and logs what the issuer said', async () => {
    const wrong = await serve({
      providers: [
        oidc({
          id: 'hostile',
          name: 'Hostile',
          issuer: issuer.issuer,
          clientId: issuer.clientId,
          clientSecret: 'not-the-client-secret',
        }),
      ],
    })
    try {
      const browser = new Browser(wrong)
      const res = await browser.signIn('hostile')
      expect(res.headers.get('location')).toBe(`${wrong.base}/error?error=OAuthCallback`)
      expect(wrong.logs.filter((entry) => entry.event === 'callback.error').at(-1)?.message).toBe(
        'provider hostile: TokenError [invalid_client]',
      )
    } finally {
      await wrong.close()
    }
  })
})
