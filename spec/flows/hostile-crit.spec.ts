import { expectRefused, expectSignedIn, useHostileHarness } from '../support/hostile-harness'

// RFC 7515 4.1.11: a JWS whose `crit` header names extensions the verifier does not understand
// must be rejected, even when its signature is good. The package understands none.
const h = useHostileHarness()

describe('the ID token crit header', () => {
  it('signs in with a validly signed ID token without crit', async () => {
    const browser = h.browser()
    await expectSignedIn(h, browser, await browser.signIn('hostile'))
  })

  it('refuses a validly signed ID token with a crit header', async () => {
    h.issuer.behave({ idTokenHeader: { crit: ['urn:example:hostile'], 'urn:example:hostile': true } })
    const browser = h.browser()
    await expectRefused(h, browser, await browser.signIn('hostile'), /signature did not verify/)
    const header = JSON.parse(Buffer.from(h.issuer.idTokens.at(-1)!.split('.')[0]!, 'base64url').toString()) as Record<
      string,
      unknown
    >
    expect(header).toMatchObject({ alg: 'ES256', crit: ['urn:example:hostile'] })
  })
})
