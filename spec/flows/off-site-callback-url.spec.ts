import { expectSignedIn, useHostileHarness } from '../support/hostile-harness'

// A callbackUrl outside the site and its trusted origins is replaced by the site origin, at every
// route that redirects to one: sign-out at once, sign-in at the end of the flow.
const h = useHostileHarness()

const offSite = ['https://evil.example/phish', '//evil.example/phish', 'javascript:alert(1)']

describe('an off-site callbackUrl', () => {
  it.each(offSite)('POST /signout with callbackUrl %s ends on the site origin', async (callbackUrl) => {
    const browser = h.browser()
    await browser.signIn('hostile')
    const res = await browser.signOut({ callbackUrl })
    expect(res.status).toBe(302)
    expect(res.headers.get('location')).toBe(`${h.origin}/`)
    expect(await browser.session()).toEqual({})
    expect(h.logs.at(-1)).toMatchObject({ event: 'redirect.rejected' })
  })

  it('POST /signout in JSON mode answers the site origin too', async () => {
    const browser = h.browser()
    const res = await browser.signOut({ callbackUrl: offSite[0]!, json: 'true' })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ url: `${h.origin}/` })
  })

  it.each(offSite)(
    'POST /signin/:provider with callbackUrl %s signs in and ends on the site origin',
    async (callbackUrl) => {
      const browser = h.browser()
      await expectSignedIn(h, browser, await browser.signIn('hostile', { callbackUrl }), `${h.origin}/`)
    },
  )

  it('an on-site callbackUrl is kept, at sign-out and at the end of a sign-in', async () => {
    const browser = h.browser()
    await expectSignedIn(
      h,
      browser,
      await browser.signIn('hostile', { callbackUrl: '/welcome?tab=2' }),
      `${h.origin}/welcome?tab=2`,
    )
    const res = await browser.signOut({ callbackUrl: `${h.origin}/bye` })
    expect(res.headers.get('location')).toBe(`${h.origin}/bye`)
  })
})
