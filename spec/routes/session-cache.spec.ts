import request from 'supertest'
import { makeApp } from '../support/app'
import { clockAt, setClock } from '../support/clock'
import { expectCookie, expectNoCookies } from '../support/cookies'
import { DAY, SIGNED_IN_AT, VALID_AT, VECTORS, sessionCookie } from '../support/sessions'

// GET /session remembers its answer for a cookie session by the cookie's exact value
// (lib/core/session/reply-cache.ts). Each spec here asks twice or more, so that the later answers come
// from the cache, and shows that a user can never tell: the answers are the ones a fresh open gives.

const iso = (seconds: number) => new Date(seconds * 1000).toISOString()
type App = ReturnType<typeof makeApp>['app']
const getSession = (app: App, cookie: string) => request(app).get('/api/auth/session').set('Cookie', cookie)

/** `token` with the character at `at` (counted from the end when negative) replaced by another one. */
function changeOne(token: string, at: number): string {
  const index = at < 0 ? token.length + at : at
  const replacement = token[index] === 'A' ? 'B' : 'A'
  return token.slice(0, index) + replacement + token.slice(index + 1)
}

describe('GET /session, asked again with the same cookie', () => {
  clockAt(VALID_AT)

  it('answers the same body and headers as the first time, and sets no cookie', async () => {
    const { app } = makeApp()
    const first = await getSession(app, sessionCookie(VECTORS.ada)).expect(200)
    const again = await getSession(app, sessionCookie(VECTORS.ada)).expect(200)
    expect(again.text).toBe(first.text)
    expect(again.body.user.name).toBe('Ada')
    for (const name of ['content-type', 'content-length', 'cache-control', 'x-content-type-options'])
      expect(again.headers[name]).toBe(first.headers[name])
    expectNoCookies(again)
  })

  it('still ends the session at its expiry', async () => {
    // A one-hour session issued before maxAge became two hours: not due for renewal (updateAge) before it ends.
    const { app } = makeApp({ session: { maxAge: 7200, updateAge: 7200 } })
    const cookie = sessionCookie(VECTORS.oneHour)
    expect((await getSession(app, cookie)).body.expires).toBe(iso(SIGNED_IN_AT + 3600))
    setClock(SIGNED_IN_AT + 3599)
    expect((await getSession(app, cookie)).body.user.name).toBe('Ada')
    setClock(SIGNED_IN_AT + 3600)
    const ended = await getSession(app, cookie).expect(200, {})
    expectCookie(ended, 'auth.session-token', { cleared: true })
  })

  it('still ends the session at maxLifetime, however often it was asked for', async () => {
    const { app } = makeApp({ session: { maxAge: 2 * DAY, updateAge: 2 * DAY, maxLifetime: 2 * DAY } })
    const cookie = sessionCookie(VECTORS.ada)
    expect((await getSession(app, cookie)).body.user.name).toBe('Ada')
    setClock(SIGNED_IN_AT + 2 * DAY - 1)
    expect((await getSession(app, cookie)).body.user.name).toBe('Ada')
    setClock(SIGNED_IN_AT + 2 * DAY)
    await getSession(app, cookie).expect(200, {})
  })

  it('renews the session once it is older than updateAge, and again for the old cookie', async () => {
    const { app } = makeApp({ session: { maxAge: 3600, updateAge: 60 } })
    const cookie = sessionCookie(VECTORS.oneHour)
    setClock(SIGNED_IN_AT + 10)
    expectNoCookies(await getSession(app, cookie))
    setClock(SIGNED_IN_AT + 59)
    const cached = await getSession(app, cookie)
    expectNoCookies(cached)
    expect(cached.body.expires).toBe(iso(SIGNED_IN_AT + 3600))
    setClock(SIGNED_IN_AT + 60)
    const due = await getSession(app, cookie)
    expectCookie(due, 'auth.session-token', { httpOnly: true })
    expect(due.body.expires).toBe(iso(SIGNED_IN_AT + 60 + 3600))
    // The renewed answer belongs to the new cookie: the old one, sent again, is renewed again.
    setClock(SIGNED_IN_AT + 61)
    const again = await getSession(app, cookie)
    expectCookie(again, 'auth.session-token', { httpOnly: true })
    expect(again.body.expires).toBe(iso(SIGNED_IN_AT + 61 + 3600))
  })

  it('refuses the session at once after the user is signed out everywhere on this instance', async () => {
    const { app, router } = makeApp()
    const cookie = sessionCookie(VECTORS.ada)
    expect((await getSession(app, cookie)).body.user.name).toBe('Ada')
    expect((await getSession(app, cookie)).body.user.name).toBe('Ada')
    await router.revokeSessions('github:1')
    const refused = await getSession(app, cookie).expect(200, {})
    expectCookie(refused, 'auth.session-token', { cleared: true })
  })

  it('runs the session callback on every request, with its own answer each time', async () => {
    let calls = 0
    const { app } = makeApp({ callbacks: { session: ({ session }) => ({ ...session, call: ++calls }) } })
    const cookie = sessionCookie(VECTORS.ada)
    expect((await getSession(app, cookie)).body.call).toBe(1)
    expect((await getSession(app, cookie)).body.call).toBe(2)
    expect((await getSession(app, cookie)).body.call).toBe(3)
  })

  it('fires events.session on every request', async () => {
    const seen: number[] = []
    const { app } = makeApp({ events: { session: () => void seen.push(seen.length) } })
    for (let i = 0; i < 3; i++) await getSession(app, sessionCookie(VECTORS.ada)).expect(200)
    expect(seen).toEqual([0, 1, 2])
  })

  it.each([
    ['the header', 5],
    ['the IV', 'eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIn0..'.length + 3],
    ['the ciphertext', Math.floor(VECTORS.ada.length / 2)],
    ['the tag', -8],
  ])('refuses a cookie with one character of %s changed, right after the real one was answered', async (_part, at) => {
    const { app } = makeApp()
    await getSession(app, sessionCookie(VECTORS.ada)).expect(200)
    const changed = await getSession(app, sessionCookie(changeOne(VECTORS.ada, at))).expect(200, {})
    expectCookie(changed, 'auth.session-token', { cleared: true })
    expect((await getSession(app, sessionCookie(VECTORS.ada))).body.user.name).toBe('Ada')
  })

  it('refuses a chunked cookie with one character changed in its second chunk', async () => {
    const { app } = makeApp()
    const real = sessionCookie(VECTORS.large)
    await getSession(app, real).expect(200)
    const changed = sessionCookie(changeOne(VECTORS.large, 3800 + 100))
    await getSession(app, changed).expect(200, {})
  })

  it('answers a cookie sealed with another secret as no session, every time', async () => {
    const { app } = makeApp()
    for (let i = 0; i < 2; i++) {
      const res = await getSession(app, sessionCookie(VECTORS.otherSecret)).expect(200, {})
      expectCookie(res, 'auth.session-token', { cleared: true })
    }
  })
})
