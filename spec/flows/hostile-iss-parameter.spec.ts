import { expectRefused, expectSignedIn, startHostileHarness, type HostileHarness } from './hostile-harness'

// RFC 9207: the `iss` parameter of the authorization response names the issuer that answered, so
// a response from another issuer (a mix-up attack) is caught before its code is spent.
describe('the RFC 9207 iss parameter, from an issuer that announces it', () => {
  let h: HostileHarness
  beforeAll(async () => { h = await startHostileHarness({ behaviour: { discovery: { authorization_response_iss_parameter_supported: true } } }) })
  afterEach(() => h.issuer.reset())
  afterAll(() => h?.stop())

  it('signs in when the parameter names the issuer', async () => {
    const browser = h.browser()
    await expectSignedIn(h, browser, await browser.signIn())
  })

  it('refuses a response without the parameter', async () => {
    h.issuer.behave({ issParameter: null })
    const browser = h.browser()
    await expectRefused(h, browser, await browser.signIn(), /iss parameter/)
  })

  it('refuses a response naming another issuer', async () => {
    h.issuer.behave({ issParameter: 'https://evil.example' })
    const browser = h.browser()
    const exchanged = h.issuer.idTokens.length
    await expectRefused(h, browser, await browser.signIn(), /iss parameter/)
    expect(h.issuer.idTokens).toHaveLength(exchanged) // the code of the refused response was never spent
  })
})

describe('the RFC 9207 iss parameter, from an issuer that does not announce it', () => {
  let h: HostileHarness
  beforeAll(async () => { h = await startHostileHarness({ behaviour: { discovery: { authorization_response_iss_parameter_supported: undefined } } }) })
  afterEach(() => h.issuer.reset())
  afterAll(() => h?.stop())

  it('signs in without the parameter', async () => {
    h.issuer.behave({ issParameter: null })
    const browser = h.browser()
    await expectSignedIn(h, browser, await browser.signIn())
  })

  it('signs in when the parameter names the issuer', async () => {
    const browser = h.browser()
    await expectSignedIn(h, browser, await browser.signIn())
  })

  it('still refuses a parameter naming another issuer', async () => {
    h.issuer.behave({ issParameter: 'https://evil.example' })
    const browser = h.browser()
    await expectRefused(h, browser, await browser.signIn(), /iss parameter/)
  })
})
