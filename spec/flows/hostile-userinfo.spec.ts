import { SUBJECT } from '../support/hostile-issuer'
import { expectRefused, expectSignedIn, useHostileHarness } from '../support/hostile-harness'

// userinfo may add to the ID token, never speak of another user (OIDC Core 5.3.2): otherwise one
// person's ID token would sign in with another person's name and e-mail.
const h = useHostileHarness()

describe('userinfo and the ID token subject', () => {
  it('signs in when userinfo describes the subject of the ID token', async () => {
    h.issuer.behave({ userinfo: { sub: SUBJECT } })
    const browser = h.browser()
    await expectSignedIn(h, browser, await browser.signIn('hostile'))
  })

  it('signs in as the ID token subject when userinfo names none', async () => {
    h.issuer.behave({ userinfo: { sub: undefined } })
    const browser = h.browser()
    await expectSignedIn(h, browser, await browser.signIn('hostile'))
  })

  it('refuses userinfo describing another subject', async () => {
    h.issuer.behave({ userinfo: { sub: 'mallory', name: 'Mallory', email: 'mallory@example.com' } })
    const browser = h.browser()
    await expectRefused(h, browser, await browser.signIn('hostile'), /another subject/)
  })
})
