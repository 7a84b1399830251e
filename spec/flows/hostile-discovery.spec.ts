import { DISCOVERY_BACKOFF_MS } from '../../lib/features/oauth/registry'
import { expectSignedIn, useHostileHarness } from '../support/hostile-harness'

// Discovery must answer for the configured issuer: a document naming another one (with ID tokens
// and an iss parameter to match) would otherwise make its keys and tokens trusted for this provider.
const impostor = 'https://accounts.evil.example'
const h = useHostileHarness({
  behaviour: { discovery: { issuer: impostor }, issParameter: impostor, idTokenClaims: { iss: impostor } },
})

describe('OpenID Connect discovery', () => {
  it('refuses a discovery document naming another issuer: the Configuration page, the sign-in never reaches the issuer, nobody is signed in', async () => {
    const browser = h.browser()
    const res = await browser.signIn('hostile')
    expect(res.status).toBe(302)
    expect(res.headers.get('location')).toBe(`${h.base}/error?error=Configuration`)
    expect(h.issuer.authorizations).toEqual([])
    expect(browser.cookie('auth.session-token')).toBeUndefined()
    expect(await browser.session()).toEqual({})
    expect(h.logs).toContainEqual(
      expect.objectContaining({
        level: 'error',
        event: 'provider.discovery_failed',
        message: expect.stringMatching(/discovery names the issuer "https:\/\/accounts\.evil\.example"/),
      }),
    )
  })

  it('answers sign-ins within the back-off without asking the issuer again', async () => {
    h.issuer.behave({ discovery: {}, issParameter: 'own', idTokenClaims: {} })
    const res = await h.browser().signIn('hostile')
    expect(res.headers.get('location')).toBe(`${h.base}/error?error=Configuration`)
    expect(h.issuer.authorizations).toEqual([])
  })

  it('tries discovery again on the next sign-in after the back-off, and signs in once the document names the issuer', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'setTimeout', 'setInterval', 'queueMicrotask'] })
    h.issuer.behave({ discovery: {}, issParameter: 'own', idTokenClaims: {} })
    try {
      jest.setSystemTime(Date.now() + DISCOVERY_BACKOFF_MS)
      const browser = h.browser()
      await expectSignedIn(h, browser, await browser.signIn('hostile'))
    } finally {
      jest.useRealTimers()
    }
  })
})
