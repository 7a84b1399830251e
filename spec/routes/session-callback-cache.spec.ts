import request from 'supertest'
import * as jwe from '../../lib/infra/crypto/jwe'
import type { Session, SessionCallbackParams } from '../../lib'
import { makeApp } from '../support/app'
import { clockAt, setClock } from '../support/clock'
import { expectCookie, expectNoCookies } from '../support/cookies'
import { DAY, SIGNED_IN_AT, VALID_AT, VECTORS, sessionCookie } from '../support/sessions'

// With a `session` callback (or `events.session`), GET /session opens a cookie once and reuses the
// record it opened to for that exact cookie, under every check a fresh open makes; the app's
// callback runs on every request with that record, and its answer is never reused.

type App = ReturnType<typeof makeApp>['app']
const getSession = (app: App, cookie: string) => request(app).get('/api/auth/session').set('Cookie', cookie)

/** A callback whose answer changes on every call: the call's number and the record's user id. */
function countingCallback() {
  const calls: number[] = []
  const session = ({ session, record }: SessionCallbackParams): Session => {
    calls.push(calls.length + 1)
    return { ...session, userId: record.userId, call: calls.length }
  }
  return { calls, session }
}

describe('GET /session with a session callback, asked again with the same cookie', () => {
  clockAt(VALID_AT)
  afterEach(() => jest.restoreAllMocks())

  it('opens the cookie once, and runs the callback on every request with its current answer', async () => {
    const opened = jest.spyOn(jwe, 'open')
    const callback = countingCallback()
    const { app } = makeApp({ callbacks: { session: callback.session } })
    for (let i = 1; i <= 4; i++) {
      const res = await getSession(app, sessionCookie(VECTORS.ada)).expect(200)
      expect(res.body).toMatchObject({ user: { name: 'Ada' }, userId: 'github:1', call: i })
      expectNoCookies(res)
    }
    expect(callback.calls).toEqual([1, 2, 3, 4])
    expect(opened).toHaveBeenCalledTimes(1)
  })

  it('gives the callback the record as the cookie holds it, whatever an earlier call did to its own', async () => {
    const seen: unknown[] = []
    const session = ({ session, record }: SessionCallbackParams): Session => {
      seen.push(JSON.parse(JSON.stringify(record)))
      // A careless callback: it changes the record it was given.
      const mutable = record as { user: { name?: string }; userId: string }
      mutable.user.name = 'Mallory'
      mutable.userId = 'github:2'
      return session
    }
    const { app } = makeApp({ callbacks: { session } })
    for (let i = 0; i < 3; i++) await getSession(app, sessionCookie(VECTORS.ada)).expect(200)
    expect(seen).toHaveLength(3)
    for (const record of seen) expect(record).toMatchObject({ userId: 'github:1', user: { name: 'Ada' } })
  })

  it('refuses the session at once after the user is signed out everywhere, and calls nothing', async () => {
    const callback = countingCallback()
    const { app, router } = makeApp({ callbacks: { session: callback.session } })
    const cookie = sessionCookie(VECTORS.ada)
    await getSession(app, cookie).expect(200)
    await getSession(app, cookie).expect(200)
    await router.revokeSessions('github:1')
    const refused = await getSession(app, cookie).expect(200, {})
    expectCookie(refused, 'auth.session-token', { cleared: true })
    expect(callback.calls).toEqual([1, 2])
  })

  it('still ends the session at its expiry and at maxLifetime', async () => {
    const callback = countingCallback()
    const { app } = makeApp({
      session: { maxAge: 7200, updateAge: 7200, maxLifetime: 2 * DAY },
      callbacks: { session: callback.session },
    })
    const cookie = sessionCookie(VECTORS.oneHour)
    await getSession(app, cookie).expect(200)
    setClock(SIGNED_IN_AT + 3599)
    expect((await getSession(app, cookie)).body.userId).toBe('github:1')
    setClock(SIGNED_IN_AT + 3600)
    expectCookie(await getSession(app, cookie).expect(200, {}), 'auth.session-token', { cleared: true })

    const long = sessionCookie(VECTORS.ada)
    setClock(SIGNED_IN_AT + 2 * DAY - 1)
    const before = callback.calls.length
    await getSession(app, long).expect(200)
    await getSession(app, long).expect(200)
    setClock(SIGNED_IN_AT + 2 * DAY)
    await getSession(app, long).expect(200, {})
    expect(callback.calls.length).toBe(before + 2)
  })

  it('renews a session due for renewal (a cookie set), however often it was answered before', async () => {
    const callback = countingCallback()
    const { app } = makeApp({ session: { maxAge: 3600, updateAge: 60 }, callbacks: { session: callback.session } })
    const cookie = sessionCookie(VECTORS.oneHour)
    setClock(SIGNED_IN_AT + 10)
    expectNoCookies(await getSession(app, cookie))
    expectNoCookies(await getSession(app, cookie))
    setClock(SIGNED_IN_AT + 60)
    const due = await getSession(app, cookie)
    expectCookie(due, 'auth.session-token', { httpOnly: true })
    expect(due.body.expires).toBe(new Date((SIGNED_IN_AT + 60 + 3600) * 1000).toISOString())
    expect(due.body.call).toBe(3)
  })

  it('fires events.session on every request, with the record and the callback answer', async () => {
    const opened = jest.spyOn(jwe, 'open')
    const seen: Array<{ userId: string; call: unknown }> = []
    const callback = countingCallback()
    const { app } = makeApp({
      callbacks: { session: callback.session },
      events: { session: ({ session, record }) => void seen.push({ userId: record.userId, call: session.call }) },
    })
    for (let i = 0; i < 3; i++) await getSession(app, sessionCookie(VECTORS.ada)).expect(200)
    expect(seen).toEqual([1, 2, 3].map((call) => ({ userId: 'github:1', call })))
    expect(opened).toHaveBeenCalledTimes(1)
  })

  it('answers no session, every time, for a callback that answers no object, and keeps no answer', async () => {
    let answer: unknown = null
    const { app } = makeApp({ callbacks: { session: () => answer as Session } })
    await getSession(app, sessionCookie(VECTORS.ada)).expect(200, {})
    await getSession(app, sessionCookie(VECTORS.ada)).expect(200, {})
    answer = { user: { name: 'now' } }
    expect((await getSession(app, sessionCookie(VECTORS.ada))).body).toEqual({ user: { name: 'now' } })
  })
})
