/**
 * A cookie session re-issued for the same sign-in (`POST /signout` with `others=true`, through
 * manager.revokeOthers) keeps the sign-in time (`auth_time`) and the `maxLifetime` counted from it,
 * stays signed in past the revocation it made, and ends at the next one (sign-out everywhere).
 */
import { jwtDecrypt } from 'jose'
import type { CookieDef } from '../../lib/infra/config/cookies'
import { cookieStore } from '../../lib/core/session/cookie-store'
import { CookieTransport } from '../../lib/core/session/cookie-transport'
import { createSessionManager, type SessionTiming } from '../../lib/core/session/manager'
import type { SessionTransport } from '../../lib/core/session/transport'
import { memoryState } from '../../lib/infra/store/memory'
import { clockAt, setClock } from '../support/clock'
import { setCookies } from '../support/cookies'
import { fakeResponse } from '../support/fake-response'
import { keyFromHex, KEYS, ringOf } from '../support/sessions'

const T = 1_900_000_000
const KEY = keyFromHex(KEYS.session)
const DEF: CookieDef = { name: 'auth.session-token', attrs: '; Path=/; HttpOnly; SameSite=Lax' }
const TIMING: SessionTiming = { maxAge: 3600, updateAge: 60, maxLifetime: 7200 }
const USER = { userId: 'email:ada@example.com', user: { email: 'ada@example.com' }, data: { plan: 'pro' } }

function exchange(cookies: Record<string, string> = {}) {
  const { res, sent } = fakeResponse()
  const cookie = new CookieTransport(cookies, DEF, res)
  return { cookie, sent }
}

/** The manager over the cookie store and in-memory revocations, and a browser's cookie jar. */
function setUp() {
  const sessions = createSessionManager(cookieStore(ringOf(KEY)), TIMING, memoryState(TIMING.maxLifetime).revocations)
  const jar: Record<string, string> = {}
  const send = async <R>(act: (cookie: SessionTransport) => Promise<R>): Promise<R> => {
    const { cookie, sent } = exchange({ ...jar })
    const result = await act(cookie)
    for (const { name, value } of setCookies(sent)) jar[name] = value
    return result
  }
  return { sessions, jar, send }
}

describe('a session re-issued by sign-out of the others', () => {
  clockAt(T)

  it('keeps auth_time and data, is signed in after the revocation, and a copy of the old cookie is not', async () => {
    const { sessions, jar, send } = setUp()
    await send((cookie) => sessions.create(cookie, USER))
    const copied = { ...jar }
    setClock(T + 3000)
    const record = (await send((cookie) => sessions.read(cookie)))!
    await send((cookie) => sessions.revokeOthers(cookie, record))
    expect(jar['auth.session-token']).not.toBe(copied['auth.session-token'])

    const { payload } = await jwtDecrypt(jar['auth.session-token']!, KEY, { currentDate: new Date() })
    expect(payload).toMatchObject({ auth_time: T, iat: T + 3000, data: { plan: 'pro' } })
    expect(payload.exp).toBe(T + 3000 + 3600)
    expect(await send((cookie) => sessions.read(cookie))).toMatchObject({ createdAt: T, userId: USER.userId })
    expect(await sessions.read(exchange(copied).cookie)).toBeNull()
  })

  it('ends at the next revocation, and at maxLifetime after the sign-in however often it is repeated', async () => {
    const { sessions, send } = setUp()
    await send((cookie) => sessions.create(cookie, USER))
    for (const at of [2000, 4000, 6000]) {
      setClock(T + at)
      const record = (await send((cookie) => sessions.read(cookie)))!
      expect(record.createdAt).toBe(T)
      await send((cookie) => sessions.revokeOthers(cookie, record))
    }
    // Bounded by the lifetime counted from the sign-in, not from the last re-issue.
    expect((await send((cookie) => sessions.read(cookie)))!.expiresAt).toBe(T + 7200)
    setClock(T + 7200)
    expect(await send((cookie) => sessions.read(cookie))).toBeNull()

    // Sign-out everywhere after a re-issue ends the re-issued session too.
    const again = setUp()
    await again.send((cookie) => again.sessions.create(cookie, USER))
    setClock(T + 7300)
    const record = (await again.send((cookie) => again.sessions.read(cookie)))!
    await again.send((cookie) => again.sessions.revokeOthers(cookie, record))
    setClock(T + 7400)
    await again.sessions.revokeAll(USER.userId)
    expect(await again.send((cookie) => again.sessions.read(cookie))).toBeNull()
  })
})
