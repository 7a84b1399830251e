import session from 'express-session'
import { databaseStore } from '../../lib/core/session/database-store'
import { memoryState } from '../../lib/infra/store/memory'
import { MAX_SESSIONS_PER_USER } from '../../lib/infra/store/types'
import { Browser } from '../support/browser'
import { GOOD, passwordSignIn, signUp } from '../password/password-harness'
import { newAddress, post, startMfaService, stopAll } from '../mfa/mfa-harness'

/**
 * The third round of an outside attack on step-up re-authentication of database sessions (the
 * session's move to a new token, `moved.{id}`, `handleSid`) and sign-out of the other sessions.
 * Each test asserts the safe behaviour: a failing test is a finding.
 */

const NOW = Math.floor(Date.now() / 1000)
const RECORD = {
  userId: 'email:ada@example.com',
  user: { email: 'ada@example.com' },
  createdAt: NOW,
  issuedAt: NOW,
  expiresAt: NOW + 3600,
}

/** The store as auth() builds it: with a shared index (Redis; the memory index acts alike), or over an app's own store. */
function storeOf(indexed: boolean) {
  return databaseStore({
    store: new session.MemoryStore(),
    index: memoryState(7200).sessionIndex,
    indexed,
    call: (work) => work(),
    maxLifetime: 7200,
  })
}

describe('mfa attacks 3: a step-up by a user at the cap of 50 sessions', () => {
  for (const indexed of [true, false]) {
    const where = indexed ? 'a shared index' : "an app's own store"

    it(`keeps the session that steps up, though it is the user's oldest (${where})`, async () => {
      const sessions = storeOf(indexed)
      const tokens: string[] = []
      for (let i = 0; i < MAX_SESSIONS_PER_USER; i++) tokens.push(await sessions.write(RECORD, null))
      // The oldest device is asked to sign in again (a payout), and does.
      const moved = await sessions.rekey!({ ...RECORD, authTime: NOW + 5 }, tokens[0]!)
      expect(moved).not.toBeNull()
      expect(await sessions.read(moved!.token, NOW, 7200)).not.toBeNull()
    })

    it(`ends no other device's session: a move is no new sign-in (${where})`, async () => {
      const sessions = storeOf(indexed)
      const tokens: string[] = []
      for (let i = 0; i < MAX_SESSIONS_PER_USER; i++) tokens.push(await sessions.write(RECORD, null))
      const moved = await sessions.rekey!({ ...RECORD, authTime: NOW + 5 }, tokens.at(-1)!)
      expect(moved).not.toBeNull()
      // The user's oldest device, untouched by the step-up on another one, is still signed in.
      expect(await sessions.read(tokens[0]!, NOW, 7200)).not.toBeNull()
      expect(await sessions.listing!.list(RECORD.userId, NOW, 7200)).toHaveLength(MAX_SESSIONS_PER_USER)
    })
  }
})

afterEach(stopAll)

describe('mfa attacks 3: sign-out of the other sessions (database sessions)', () => {
  /** A memory store that can hold its next delete (a session sign-out of the others ends) until let go. */
  function gatedStore() {
    const store = new session.MemoryStore()
    let armed = false
    let go: () => void = () => undefined
    let arrived: () => void = () => undefined
    const waiting = new Promise<void>((resolve) => (arrived = resolve))
    const destroy = store.destroy.bind(store)
    store.destroy = (sid, callback) => {
      if (!armed) return destroy(sid, callback)
      armed = false
      go = () => destroy(sid, callback)
      arrived()
    }
    return { store, arm: () => (armed = true), waiting, release: () => go() }
  }

  it('the kept session stays signed in for a request it makes meanwhile (another tab polling /session)', async () => {
    const gate = gatedStore()
    const service = await startMfaService(undefined, {
      options: { session: { strategy: 'database', store: gate.store } },
    })
    const address = newAddress()
    const laptop = new Browser(service)
    await signUp(service, laptop, address, GOOD)
    const phone = new Browser(service)
    expect((await passwordSignIn(service, phone, address, GOOD)).status).toBe(200)
    gate.arm()
    const others = post(service, laptop, '/signout', { others: 'true' }, true)
    await gate.waiting
    // The laptop's other tab asks for the session while the phone's is being ended.
    const meanwhile = await laptop.session()
    gate.release()
    await others
    // And after it: the laptop is still signed in (its cookie was not cleared by the answer meanwhile).
    expect(await service.record(laptop)).not.toBeNull()
    expect(await service.record(phone)).toBeNull()
    expect(meanwhile.user).toBeDefined()
  })
})
