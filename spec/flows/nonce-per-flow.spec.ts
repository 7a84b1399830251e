import { startHostileHarness, type HostileHarness } from './hostile-harness'

// A nonce only binds an ID token to its flow when every flow has its own, unguessable one.
let h: HostileHarness
beforeAll(async () => { h = await startHostileHarness() })
afterAll(() => h?.stop())

describe('the nonce sent to the issuer', () => {
  it('is new for every sign-in, random, and never the state', async () => {
    const one = h.browser()
    const two = h.browser()
    await one.signIn()
    await two.signIn()
    await one.signIn()
    const sent = h.issuer.authorizations.map((query) => ({ nonce: query.get('nonce'), state: query.get('state') }))
    expect(sent).toHaveLength(3)
    for (const { nonce, state } of sent) {
      expect(nonce).toMatch(/^[A-Za-z0-9_-]{22,}$/)
      expect(state).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/)
      expect(nonce).not.toBe(state)
      expect(state).not.toContain(nonce)
    }
    expect(new Set(sent.map(({ nonce }) => nonce)).size).toBe(3)
  })
})
