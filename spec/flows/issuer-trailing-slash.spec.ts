import { expectSignedIn, useHostileHarness } from '../support/hostile-harness'

// An issuer written with a trailing slash (Auth0's is `https://tenant.auth0.com/`): discovery, the
// ID token's `iss` and RFC 9207's `iss` name it with the slash, and the sign-in works.
const h = useHostileHarness({ trailingSlash: true })

it('signs in through an issuer whose identifier ends in a slash', async () => {
  expect(h.issuer.issuer).toMatch(/\/$/)
  const browser = h.browser()
  await expectSignedIn(h, browser, await browser.signIn('hostile'))
})
