import { cookieStore } from '../../lib/core/session/cookie-store'
import { createSessionManager } from '../../lib/core/session/manager'
import type { SessionTransport } from '../../lib/core/session/transport'
import { memoryState } from '../../lib/infra/store/memory'
import { clockAt } from '../support/clock'
import { DAY, KEYS, VALID_AT, keyFromHex, ringOf } from '../support/sessions'

// The session manager knows the token alone: any transport carries it (lib/core/session/transport.ts).
// Here a client that keeps the token itself, as one holding a bearer token would, with no cookie.

const TIMING = { maxAge: 3600, updateAge: 600, maxLifetime: DAY }

/** A client keeping its token in hand: what it sends, and what it was last told. */
function client(limit = Infinity) {
  const told: string[] = []
  let held: string | null = null
  const transport = (): SessionTransport => ({
    present: () => held !== null,
    token: () => held,
    assertFits(token) {
      if (token.length > limit) throw new Error(`a token of ${token.length} characters is too long`)
    },
    write(token, maxAgeSeconds) {
      held = token
      told.push(`keep for ${maxAgeSeconds}s`)
    },
    clear() {
      held = null
      told.push('forget')
    },
    request: undefined,
  })
  return { transport, told }
}

describe('the session manager on another transport than the cookie', () => {
  clockAt(VALID_AT)
  const sessions = () =>
    createSessionManager(cookieStore(ringOf(keyFromHex(KEYS.session))), TIMING, memoryState(DAY).revocations)

  it('signs in, reads, renews nothing early and signs out through it', async () => {
    const manager = sessions()
    const { transport, told } = client()
    expect(manager.present(transport())).toBe(false)
    await manager.create(transport(), { userId: 'github:1', user: { name: 'Ada' } })
    expect(manager.present(transport())).toBe(true)
    const record = await manager.read(transport())
    expect(record).toMatchObject({ userId: 'github:1', user: { name: 'Ada' } })
    expect(await manager.renewIfDue(transport(), record!)).toBe(record)
    await manager.destroy(transport(), record)
    expect(await manager.read(transport())).toBeNull()
    expect(told).toEqual(['keep for 3600s', 'forget'])
  })

  it('starts no session whose token the transport cannot carry, before anything records it', async () => {
    const { transport, told } = client(10)
    const stored = jest.fn(async () => undefined)
    await expect(sessions().create(transport(), { userId: 'github:1', user: {} }, stored)).rejects.toThrow(/too long/)
    expect(stored).not.toHaveBeenCalled()
    expect(told).toEqual([])
  })
})
