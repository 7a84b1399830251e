import type { RedirectCallbackParams } from '../../lib'
import { expectSignedIn, useHostileHarness } from '../support/hostile-harness'

// The app's redirect callback sees every target last, and its answer is validated like any
// callbackUrl: an app bug (or an attacker-controlled value it echoes) never sends users off-site.
let answer: (params: RedirectCallbackParams) => string
const seen: RedirectCallbackParams[] = []
const h = useHostileHarness({
  auth: {
    callbacks: {
      redirect: (params) => {
        seen.push(params)
        return answer(params)
      },
    },
  },
})
beforeEach(() => {
  seen.length = 0
})

describe('the redirect callback', () => {
  it('is obeyed when it answers a target on the site', async () => {
    answer = ({ baseUrl }) => `${baseUrl}/dashboard`
    const browser = h.browser()
    await expectSignedIn(
      h,
      browser,
      await browser.signIn('hostile', { callbackUrl: '/welcome' }),
      `${h.origin}/dashboard`,
    )
    expect(seen).toEqual([{ url: `${h.origin}/welcome`, baseUrl: h.origin }])
    const res = await browser.signOut({ callbackUrl: '/bye' })
    expect(res.headers.get('location')).toBe(`${h.origin}/dashboard`)
  })

  it('is shown the site origin, not an off-site callbackUrl', async () => {
    answer = ({ url }) => url
    const res = await h.browser().signOut({ callbackUrl: 'https://evil.example/phish' })
    expect(seen).toEqual([{ url: `${h.origin}/`, baseUrl: h.origin }])
    expect(res.headers.get('location')).toBe(`${h.origin}/`)
  })

  it.each(['https://evil.example/phish', '//evil.example/phish'])(
    'answering %s: sign-out and sign-in still end on the site origin',
    async (offSite) => {
      answer = () => offSite
      const browser = h.browser()
      await expectSignedIn(h, browser, await browser.signIn('hostile', { callbackUrl: '/welcome' }), `${h.origin}/`)
      const res = await browser.signOut({ callbackUrl: '/welcome' })
      expect(res.status).toBe(302)
      expect(res.headers.get('location')).toBe(`${h.origin}/`)
      expect(await browser.session()).toEqual({})
    },
  )
})
