import { expectRefused, expectSignedIn, useHostileHarness } from '../support/hostile-harness'

// RFC 9207: the `iss` parameter of the authorization response names the issuer that answered, so
// a response from another issuer (a mix-up attack) is caught before its code is spent.
describe('the RFC 9207 iss parameter, from an issuer that announces it', () => {
  const h = useHostileHarness({ behaviour: { discovery: { authorization_response_iss_parameter_supported: true } } })

  it('signs in when the parameter names the issuer', async () => {
    const browser = h.browser()
    await expectSignedIn(h, browser, await browser.signIn('hostile'))
  })

  it('refuses a response without the parameter', async () => {
    h.issuer.behave({ issParameter: null })
    const browser = h.browser()
    await expectRefused(h, browser, await browser.signIn('hostile'), /iss parameter/)
  })

  it('refuses a response naming another issuer', async () => {
    h.issuer.behave({ issParameter: 'https://evil.example' })
    const browser = h.browser()
    const exchanged = h.issuer.idTokens.length
    await expectRefused(h, browser, await browser.signIn('hostile'), /iss parameter/)
    expect(h.issuer.idTokens).toHaveLength(exchanged) // the code of the refused response was never spent
  })
})

describe('the RFC 9207 iss parameter, from an issuer that does not announce it', () => {
  const h = useHostileHarness({
    behaviour: { discovery: { authorization_response_iss_parameter_supported: undefined } },
  })

  it('signs in without the parameter', async () => {
    h.issuer.behave({ issParameter: null })
    const browser = h.browser()
    await expectSignedIn(h, browser, await browser.signIn('hostile'))
  })

  it('signs in when the parameter names the issuer', async () => {
    const browser = h.browser()
    await expectSignedIn(h, browser, await browser.signIn('hostile'))
  })

  it('still refuses a parameter naming another issuer', async () => {
    h.issuer.behave({ issParameter: 'https://evil.example' })
    const browser = h.browser()
    await expectRefused(h, browser, await browser.signIn('hostile'), /iss parameter/)
  })
})
