import { AuthError, type SignInCallbackParams, type SignInResult } from '../../lib'
import { Browser } from '../support/browser'
import { startHarness, type Harness } from '../support/oauth-harness'

let h: Harness
let decide: (params: SignInCallbackParams) => SignInResult | Promise<SignInResult>
const seen: SignInCallbackParams[] = []
const signedIn: string[] = []

beforeAll(async () => {
  h = await startHarness({
    callbacks: {
      signIn: (params) => {
        seen.push(params)
        return decide(params)
      },
      session: ({ session, record }) => ({
        ...session,
        userId: record.userId,
        hasToken: typeof record.data?.accessToken === 'string',
      }),
    },
    events: {
      signIn: ({ record }) => {
        signedIn.push(record.userId)
      },
    },
  })
})
afterAll(() => h?.stop())
beforeEach(() => {
  seen.length = 0
  signedIn.length = 0
})

describe("the app's signIn callback", () => {
  it('sees the user, the account with its tokens, and the profile', async () => {
    decide = () => true
    await new Browser(h).signIn('oidc')
    expect(seen).toHaveLength(1)
    expect(JSON.stringify(h.logs)).not.toContain(String(seen[0]!.account.id_token))
    expect(seen[0]).toMatchObject({
      user: { id: 'alice', name: 'Alice Example', email: 'alice@example.com' },
      account: {
        provider: 'oidc',
        type: 'oauth',
        providerAccountId: 'alice',
        access_token: expect.any(String),
        id_token: expect.any(String),
        expires_at: expect.any(Number),
      },
      profile: { sub: 'alice', email: 'alice@example.com' },
    })
    expect(signedIn).toEqual(['oidc:alice'])
  })

  it('false ends on AccessDenied and signs nobody in', async () => {
    decide = () => false
    const browser = new Browser(h)
    expect((await browser.signIn('oidc')).headers.get('location')).toBe(`${h.base}/error?error=AccessDenied`)
    expect(await browser.session()).toEqual({})
    expect(signedIn).toEqual([])
  })

  it('a URL redirects there (validated) without signing in', async () => {
    const browser = new Browser(h)
    decide = () => '/not-yet'
    expect((await browser.signIn('oidc')).headers.get('location')).toBe(`${h.origin}/not-yet`)
    decide = () => 'https://evil.example/phish'
    expect((await browser.signIn('oidc')).headers.get('location')).toBe(`${h.origin}/`)
    expect(await browser.session()).toEqual({})
  })

  it('a throw ends on an error page, not a 500: its own code for an AuthError, else AccessDenied', async () => {
    const browser = new Browser(h)
    decide = () => {
      throw new AuthError('OAuthAccountNotLinked', 'linked elsewhere')
    }
    expect((await browser.signIn('oidc')).headers.get('location')).toBe(`${h.base}/error?error=OAuthAccountNotLinked`)
    decide = () => {
      throw new Error('database down')
    }
    const res = await browser.signIn('oidc')
    expect(res.headers.get('location')).toBe(`${h.base}/error?error=AccessDenied`)
    expect(h.logs).toContainEqual(
      expect.objectContaining({
        event: 'callback.error',
        level: 'warn',
        message: expect.stringContaining('database down'),
      }),
    )
    expect(await browser.session()).toEqual({})
    expect(signedIn).toEqual([])
  })

  it("logs a thrown error's text as outside text: cut, with its line breaks escaped", async () => {
    // 2,145 characters with line breaks, as an exception quoting a database row or a stack might carry.
    const forged = `lookup failed\r\n[express-auth-service] info session.created: signed in as admin\u2028${'x'.repeat(2080)}`
    decide = () => {
      throw new Error(forged)
    }
    h.logs.length = 0
    const browser = new Browser(h)
    expect((await browser.signIn('oidc')).headers.get('location')).toBe(`${h.base}/error?error=AccessDenied`)
    const entry = h.logs.find((logged) => logged.event === 'callback.error')!
    expect(entry.message).toContain('callbacks.signIn threw, so the sign-in was refused: lookup failed')
    expect(entry.message).not.toMatch(/[\r\n\u2028]/)
    expect(entry.message.length).toBeLessThan(300)
  })

  it.each([
    ['null', null, 'null'],
    ['undefined', undefined, 'undefined'],
    ['0', 0, 'the number 0'],
    ['NaN', Number.NaN, 'NaN'],
    ['an empty object', {}, 'an object'],
    ['a user row', { id: 7, name: 'Alice' }, 'an object'],
    ['a grant with a bad userId', { userId: 42 }, 'an object'],
    ['a grant with data that is not an object', { data: 'x' }, 'an object'],
    ['an array', ['ok'], 'an array'],
    ['a promise of null', Promise.resolve(null), 'null'],
    ['a grant whose userId lookup found nobody', { userId: undefined }, 'an object'],
    ['a grant with data undefined', { data: undefined }, 'an object'],
    ['a grant with data that cannot be sealed (BigInt)', { data: { n: 1n } }, 'an object'],
    ['a grant with data whose toJSON answers a number', { data: { toJSON: () => 1 } }, 'an object'],
  ])('fails closed on %s: AccessDenied, nobody signed in, a warning naming the type', async (_label, answer, named) => {
    decide = () => answer as SignInResult
    const browser = new Browser(h)
    expect((await browser.signIn('oidc')).headers.get('location')).toBe(`${h.base}/error?error=AccessDenied`)
    expect(browser.cookie('auth.session-token')).toBeUndefined()
    expect(await browser.session()).toEqual({})
    expect(signedIn).toEqual([])
    expect(h.logs).toContainEqual(
      expect.objectContaining({
        event: 'callback.error',
        level: 'warn',
        message: expect.stringContaining(`answered ${named}`),
      }),
    )
  })

  it("an object gives the session the app's own user id and server-side data", async () => {
    decide = ({ account }) => ({ userId: 'person-42', data: { accessToken: account.access_token } })
    const browser = new Browser(h)
    await browser.signIn('plain')
    expect(await browser.session()).toMatchObject({
      userId: 'person-42',
      hasToken: true,
      user: { email: 'alice@example.com' },
    })
    const accessToken = seen[0]!.account.access_token
    expect(typeof accessToken).toBe('string')
    expect(JSON.stringify(await browser.session())).not.toContain(accessToken as string)
    expect(JSON.stringify(h.logs)).not.toContain(accessToken as string)
  })
})
