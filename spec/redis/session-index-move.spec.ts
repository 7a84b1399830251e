import { storeHealth } from '../../lib/infra/store/health'
import { redisRunner } from '../../lib/infra/store/redis'
import { redisState } from '../../lib/infra/store/redis-state'
import { MAX_SESSIONS_PER_USER } from '../../lib/infra/store/types'
import { sharedRedisForFile } from '../support/redis'

/**
 * The user's session index in Redis moving one session to a new id (a step-up's re-authentication,
 * lib/core/session/database-store.ts): in one step, only when the old id is listed, and at the cap
 * of sessions a user without ending another.
 */
const db = sharedRedisForFile('session-index-move')

const index = () =>
  redisState(
    redisRunner(
      db.client,
      db.prefix,
      2000,
      storeHealth(() => undefined, 'Redis'),
    ),
    { maxLifetime: 3600, revocationDelay: 10 },
  ).sessionIndex

describe('the Redis session index: move', () => {
  it('lists the new id in place of the old, once; a second move of the same id loses', async () => {
    const sessions = index()
    const until = Math.floor(Date.now() / 1000) + 3600
    await sessions.add('ada', 'old', until)
    expect(await sessions.move!('ada', 'old', 'new', until)).toBe(true)
    expect(await sessions.move!('ada', 'old', 'other', until)).toBe(false)
    expect(await sessions.members('ada', until - 3600)).toEqual(['new'])
  })

  it('at the cap, ends none of the user’s other sessions, the oldest included', async () => {
    const sessions = index()
    const until = Math.floor(Date.now() / 1000) + 3600
    const ids = Array.from({ length: MAX_SESSIONS_PER_USER }, (_, i) => `s${String(i).padStart(2, '0')}`)
    for (const id of ids) await sessions.add('bob', id, until)
    expect(await sessions.move!('bob', ids[0]!, 'moved', until)).toBe(true)
    const members = await sessions.members('bob', until - 3600)
    expect(members).toHaveLength(MAX_SESSIONS_PER_USER)
    expect(members).toContain('moved')
    expect(members).not.toContain(ids[0])
  })
})
