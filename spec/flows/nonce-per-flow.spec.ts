import { useHostileHarness } from '../support/hostile-harness'

// A nonce only binds an ID token to its flow when every flow has its own, unguessable one.
const h = useHostileHarness()

describe('the nonce sent to the issuer', () => {
  it('is new for every sign-in, random, and never the state', async () => {
    const one = h.browser()
    const two = h.browser()
    await one.signIn('hostile')
    await two.signIn('hostile')
    await one.signIn('hostile')
    const sent = h.issuer.authorizations.map((query) => ({ nonce: query.get('nonce'), state: query.get('state') }))
    expect(sent).toHaveLength(3)
    for (const { nonce, state } of sent) {
      expect(nonce).toMatch(/^[\w-]{22,}$/)
      expect(state).toMatch(/^[\w-]+\.[\w-]+$/)
      expect(nonce).not.toBe(state)
      expect(state).not.toContain(nonce)
    }
    expect(new Set(sent.map(({ nonce }) => nonce)).size).toBe(3)
  })
})
