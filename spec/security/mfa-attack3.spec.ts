import session from 'express-session'
import { databaseStore } from '../../lib/core/session/database-store'
import { memoryState } from '../../lib/infra/store/memory'
import { MAX_SESSIONS_PER_USER } from '../../lib/infra/store/types'

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
