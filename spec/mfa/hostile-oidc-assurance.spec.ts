import { memoryAccounts, totp } from '../../lib'
import { useHostileHarness, type HostileHarness } from '../support/hostile-harness'

/**
 * What an issuer that misbehaves can make of the ID token's `amr`, `acr` and `auth_time`: a value
 * of the wrong shape (an `amr` of 1,000 entries, a string, an object; an `acr` that is not a
 * string) never counts as two factors, nor makes a sign-in fail otherwise than by a refusal; a step-up's ID token without a
 * number for `auth_time`, or with one before the step-up began or after now, signs nobody in again.
 */

const GOLD = 'urn:example:gold'

/** The callback's answer: where the browser goes next. */
const whereTo = async (h: HostileHarness, claims: Record<string, unknown>) => {
  h.issuer.behave({ idTokenClaims: claims })
  const res = await h.browser().signIn('hostile')
  expect(res.status).toBe(302)
  return res.headers.get('location')!
}

describe('amr and acr of every shape, with a second factor always due', () => {
  const h = useHostileHarness({
    provider: { acrValues: [GOLD] },
    auth: { accounts: memoryAccounts(), mfa: { factors: [totp()], require: 'always' } },
  })
  const welcome = () => `${h.origin}/welcome`
  const secondFactor = () => new RegExp(`^${h.base}/mfa\\?`)

  it.each<[string, Record<string, unknown>]>([
    ['amr naming mfa', { amr: ['pwd', 'mfa'] }],
    [
      'amr naming mfa beside entries that are not method names (dropped)',
      { amr: [5, {}, null, 'x'.repeat(100), 'mfa'] },
    ],
    ['an acr among acrValues', { acr: GOLD }],
  ])('counts %s as two factors', async (_, claims) => {
    expect(await whereTo(h, claims)).toBe(welcome())
  })

  it.each<[string, Record<string, unknown>]>([
    ['an amr of 1,000 entries', { amr: Array.from({ length: 1000 }, () => 'mfa') }],
    ['an amr that is a string', { amr: 'mfa' }],
    ['an amr that is an object', { amr: { 0: 'mfa', length: 1 } }],
    ['an amr whose mfa is spelled otherwise', { amr: ['MFA', ' mfa', 'mfa '] }],
    ['an acr in a list', { acr: [GOLD] }],
    ['an acr that is an object', { acr: { value: GOLD } }],
    ['an acr with a space', { acr: `${GOLD} ` }],
    ['an acr not among acrValues', { acr: 'urn:example:silver' }],
  ])('does not count %s, and asks for the second factor', async (_, claims) => {
    expect(await whereTo(h, claims)).toMatch(secondFactor())
  })

  it('refuses an ID token with an amr of 10,000 entries whole: it is too large to be one', async () => {
    expect(await whereTo(h, { amr: Array.from({ length: 10_000 }, () => 'mfa') })).toBe(
      `${h.base}/error?error=OAuthCallback`,
    )
  })
})

describe("a step-up's auth_time", () => {
  const h = useHostileHarness()
  const now = () => Math.floor(Date.now() / 1000)

  /** Alice signed in, then sent to sign in again (the step-up's page); the re-authentication's answer. */
  async function stepUp(authTime: () => unknown): Promise<{ location: string | null; session: unknown }> {
    const browser = h.browser()
    expect((await browser.signIn('hostile')).headers.get('location')).toBe(`${h.origin}/welcome`)
    const page = await browser.jar.fetch(`${h.base}/signin?reauth=1&callbackUrl=%2Fwelcome`)
    expect(page.status).toBe(200)
    await page.arrayBuffer()
    h.issuer.behave({ idTokenClaims: { auth_time: authTime() } })
    const res = await browser.signIn('hostile')
    expect(h.issuer.authorizations.at(-1)!.get('prompt')).toBe('login')
    return { location: res.headers.get('location'), session: await browser.session() }
  }

  it('meets the step-up with an auth_time of now', async () => {
    expect((await stepUp(now)).location).toBe(`${h.origin}/welcome`)
  })

  it.each<[string, () => unknown, RegExp]>([
    ['none', () => undefined, /has no auth_time/],
    ['a string', () => String(now()), /has no auth_time/],
    ['ten minutes ago', () => now() - 600, /signed in before it started/],
    ['an hour from now', () => now() + 3600, /auth_time in the future/],
  ])('refuses an auth_time of %s, and the session stays', async (_, authTime, reason) => {
    const { location, session } = await stepUp(authTime)
    expect(location).toBe(`${h.base}/error?error=OAuthCallback`)
    expect(h.logs.filter((entry) => entry.event === 'callback.error').at(-1)?.message).toMatch(reason)
    expect(session).toMatchObject({ user: { email: 'alice@example.com' } })
  })
})
