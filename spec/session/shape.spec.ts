import type { Callbacks, SessionRecord } from '../../lib/infra/config/types'
import { clientSession } from '../../lib/core/session/shape'
import { ADA, SIGNED_IN_AT } from '../support/sessions'

const record: SessionRecord = {
  userId: 'github:1',
  user: ADA,
  createdAt: SIGNED_IN_AT,
  issuedAt: SIGNED_IN_AT,
  expiresAt: SIGNED_IN_AT + 3600,
}
const DEFAULT = { user: ADA, expires: new Date((SIGNED_IN_AT + 3600) * 1000).toISOString() }

describe('the client session', () => {
  it('is the user and the expiry without a session callback', async () => {
    expect(await clientSession(record, {}, jest.fn())).toEqual(DEFAULT)
  })

  it("is the session callback's object when it answers one", async () => {
    const session = jest.fn(() => ({ ...DEFAULT, role: 'admin' }))
    expect(await clientSession(record, { session }, jest.fn())).toEqual({ ...DEFAULT, role: 'admin' })
  })

  it.each([
    ['a string', 'signed-in', 'string'],
    ['an array', [DEFAULT], 'an array'],
    ['null', null, 'null'],
  ])('is null (signed out), logged, when the session callback answers %s', async (_case, answer, kind) => {
    const log = jest.fn()
    const callbacks = { session: () => answer } as unknown as Callbacks
    expect(await clientSession(record, callbacks, log)).toBeNull()
    expect(log).toHaveBeenCalledWith(
      'error',
      'callback.error',
      `callbacks.session answered ${kind}, not a session object: the request is answered as signed out`,
    )
  })

  it.each([
    ['a promise', async () => ({ ...DEFAULT, role: 'admin' })],
    [
      'a thenable that is not a Promise',
      () => ({ then: (resolve: (v: unknown) => void) => resolve({ ...DEFAULT, role: 'admin' }) }),
    ],
  ])('waits for the session callback when it answers %s', async (_case, session) => {
    const answer = clientSession(record, { session } as unknown as Callbacks, jest.fn())
    expect(answer).toBeInstanceOf(Promise)
    expect(await answer).toEqual({ ...DEFAULT, role: 'admin' })
  })

  it('answers at once, with no promise, when the session callback answers at once', () => {
    const session = () => ({ ...DEFAULT, role: 'admin' })
    expect(clientSession(record, { session }, jest.fn())).toEqual({ ...DEFAULT, role: 'admin' })
  })

  it.each([
    [
      'throws',
      () => {
        throw new Error('database down')
      },
    ],
    ['rejects', () => Promise.reject(new Error('database down'))],
    [
      'answers an object whose then throws',
      () => ({
        get then() {
          throw new Error('database down')
        },
      }),
    ],
  ])('rejects, never throws, when the session callback %s', async (_case, session) => {
    let answer: unknown
    expect(() => (answer = clientSession(record, { session } as unknown as Callbacks, jest.fn()))).not.toThrow()
    await expect(answer).rejects.toThrow('database down')
  })
})
