import { expectRefused, expectSignedIn, useHostileHarness } from '../support/hostile-harness'

// The nonce binds the ID token to the flow that asked for it: an ID token minted for another
// sign-in (a replayed or injected one) must not sign anybody in.
const h = useHostileHarness()

describe('the ID token nonce', () => {
  it('signs in when the ID token carries the nonce of this flow', async () => {
    const browser = h.browser()
    const res = await browser.signIn('hostile')
    await expectSignedIn(h, browser, res)
    const nonce = h.issuer.authorizations.at(-1)!.get('nonce')
    expect(nonce).toMatch(/^[\w-]{22,}$/)
  })

  it('refuses an ID token carrying the nonce of another sign-in', async () => {
    const earlier = await h.browser().startSignIn('hostile')
    const otherNonce = new URL(earlier.headers.get('location')!).searchParams.get('nonce')!
    expect(otherNonce).toMatch(/^[\w-]{22,}$/)
    h.issuer.behave({ idTokenClaims: { nonce: otherNonce } })
    const browser = h.browser()
    await expectRefused(h, browser, await browser.signIn('hostile'), /nonce does not match/)
    expect(h.issuer.authorizations.at(-1)!.get('nonce')).not.toBe(otherNonce)
  })

  it('refuses an ID token without a nonce', async () => {
    h.issuer.behave({ idTokenClaims: { nonce: undefined } })
    const browser = h.browser()
    await expectRefused(h, browser, await browser.signIn('hostile'), /nonce does not match/)
  })
})
