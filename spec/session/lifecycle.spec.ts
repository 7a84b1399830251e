import session from 'express-session'
import type { CookieDef } from '../../lib/infra/config/cookies'
import type { SessionRecord } from '../../lib/infra/config/types'
import { cookieStore } from '../../lib/core/session/cookie-store'
import { CookieTransport } from '../../lib/core/session/cookie-transport'
import { databaseStore } from '../../lib/core/session/database-store'
import type { SessionLifecycle } from '../../lib/core/session/lifecycle'
import { createSessionManager } from '../../lib/core/session/manager'
import type { RecordStore } from '../../lib/core/session/record-store'
import { memoryState } from '../../lib/infra/store/memory'
import { clockAt, setClock } from '../support/clock'
import { setCookies } from '../support/cookies'
import { fakeResponse } from '../support/fake-response'
import { DAY, KEYS, VALID_AT, keyFromHex, ringOf } from '../support/sessions'

// The session lifecycle (lib/core/session/lifecycle.ts): what a feature keeping something beside a
// session (provider tokens in Redis) is told, for every way a session ends or moves, without
// wrapping the record store.

const DEF: CookieDef = { name: 'auth.session-token', attrs: '; Path=/; HttpOnly; SameSite=Lax' }
const TIMING = { maxAge: 3600, updateAge: 600, maxLifetime: DAY }
const USER = 'email:ada@example.com'

/** A lifecycle that notes what it is told, naming each session by the device it signed in on. */
function recorder() {
  const events: string[] = []
  const device = (record: SessionRecord) => String(record.data?.device)
  const lifecycle: SessionLifecycle = {
    sessionEnded: async (record) => void events.push(`ended ${device(record)}`),
    userSessionsEnded: async (userId, kept) =>
      void events.push(`all of ${userId} ended, kept ${kept ? device(kept) : 'none'}`),
    sessionRenewed: async (record) => void events.push(`renewed ${device(record)}`),
  }
  return { events, lifecycle }
}

/** The manager over `store`, and browsers: a sign-in gives the cookies it would keep. */
function sessionsOver(store: RecordStore, lifecycles: readonly SessionLifecycle[]) {
  const sessions = createSessionManager(store, TIMING, memoryState(DAY).revocations, { lifecycles })
  const browser = (cookies: Record<string, string> = {}) => new CookieTransport(cookies, DEF, fakeResponse().res)
  async function signIn(device: string, cookies: Record<string, string> = {}) {
    const { res, sent } = fakeResponse()
    await sessions.create(new CookieTransport(cookies, DEF, res), { userId: USER, user: {}, data: { device } })
    return Object.fromEntries(setCookies(sent).map(({ name, value }) => [name, value]))
  }
  const recordOf = async (cookies: Record<string, string>) => (await sessions.read(browser(cookies)))!
  return { sessions, browser, signIn, recordOf }
}

function databaseSessions(lifecycles: readonly SessionLifecycle[]) {
  const held = databaseStore({
    store: new session.MemoryStore(),
    index: memoryState(DAY).sessionIndex,
    indexed: true,
    call: (work) => work(),
    maxLifetime: DAY,
    lifecycles,
  })
  const store = { ...held, read: jest.fn(held.read.bind(held)) }
  return { store, ...sessionsOver(store, lifecycles) }
}

describe('the session lifecycle', () => {
  clockAt(VALID_AT)

  it('tells every lifecycle, in order, of a sign-out, with what the session held', async () => {
    const [first, second] = [recorder(), recorder()]
    const { signIn, sessions, browser, recordOf } = databaseSessions([first.lifecycle, second.lifecycle])
    const phone = await signIn('phone')
    const laptop = await signIn('laptop')
    await sessions.destroy(browser(phone), await recordOf(phone))
    // A sign-out whose session did not open for the caller: read first, for the hooks.
    await sessions.destroy(browser(laptop), null)
    expect(first.events).toEqual(['ended phone', 'ended laptop'])
    expect(second.events).toEqual(first.events)
  })

  it('tells of the session a new sign-in replaces in the same browser, and of one undone', async () => {
    const { events, lifecycle } = recorder()
    const { signIn, sessions } = databaseSessions([lifecycle])
    const old = await signIn('phone')
    await signIn('phone again', old)
    expect(events).toEqual(['ended phone'])
    const failing = async () => Promise.reject(new Error('the logout index did not answer'))
    const signingIn = sessions.create(
      new CookieTransport({}, DEF, fakeResponse().res),
      { userId: USER, user: {}, data: { device: 'tablet' } },
      failing,
    )
    await expect(signingIn).rejects.toThrow('the logout index did not answer')
    expect(events).toEqual(['ended phone', 'ended tablet'])
  })

  it('tells of sign-out everywhere, and of the end of the other sessions with the one kept', async () => {
    const { events, lifecycle } = recorder()
    const { signIn, sessions, browser, recordOf } = databaseSessions([lifecycle])
    const phone = await signIn('phone')
    await signIn('laptop')
    await sessions.revokeOthers(browser(phone), await recordOf(phone))
    await sessions.revokeAll(USER)
    expect(events).toEqual([`all of ${USER} ended, kept phone`, `all of ${USER} ended, kept none`])
  })

  it('tells of the end of the other cookie sessions, keeping the re-issued one', async () => {
    const { events, lifecycle } = recorder()
    const { signIn, sessions, browser, recordOf } = sessionsOver(cookieStore(ringOf(keyFromHex(KEYS.session))), [
      lifecycle,
    ])
    const phone = await signIn('phone')
    await sessions.revokeOthers(browser(phone), await recordOf(phone))
    expect(events).toEqual([`all of ${USER} ended, kept phone`])
  })

  it('tells of a renewal and of an update, never of a session left as it was', async () => {
    const { events, lifecycle } = recorder()
    const { signIn, sessions, browser, recordOf } = databaseSessions([lifecycle])
    const phone = await signIn('phone')
    const record = await recordOf(phone)
    expect(await sessions.renewIfDue(browser(phone), record)).toBe(record)
    expect(events).toEqual([])
    setClock(VALID_AT + TIMING.updateAge)
    await sessions.renewIfDue(browser(phone), record)
    await sessions.save(browser(phone), { ...record, data: { device: 'phone, renamed' } })
    expect(events).toEqual(['renewed phone', 'renewed phone, renamed'])
  })

  it('tells of a session ended one by one through the listing (revokeSession, back-channel logout)', async () => {
    const { events, lifecycle } = recorder()
    const { store, signIn, recordOf } = databaseSessions([lifecycle])
    const phone = await signIn('phone')
    const laptop = await signIn('laptop')
    const sidOf = (cookies: Record<string, string>) => store.listing!.sidOf(cookies[DEF.name]!)!
    expect(await store.listing!.end(USER, sidOf(phone), await recordOf(phone))).toBe(true)
    // Without the record: read for the hooks.
    expect(await store.listing!.end(USER, sidOf(laptop))).toBe(true)
    expect(await store.listing!.end(USER, sidOf(laptop))).toBe(false)
    expect(events).toEqual(['ended phone', 'ended laptop'])
  })

  it('reads no ended session for hooks that do not want it', async () => {
    const renewals: SessionLifecycle = { sessionRenewed: async () => undefined }
    const { store, signIn, sessions, browser } = databaseSessions([renewals])
    const phone = await signIn('phone')
    store.read.mockClear()
    await sessions.destroy(browser(phone), null)
    expect(store.read).not.toHaveBeenCalled()
  })

  it('runs every lifecycle past one that fails, then fails the end with its error', async () => {
    const failing: SessionLifecycle = { sessionEnded: () => Promise.reject(new Error('Redis did not answer')) }
    const after = recorder()
    const { signIn, sessions, browser, recordOf } = databaseSessions([failing, after.lifecycle])
    const phone = await signIn('phone')
    await expect(sessions.destroy(browser(phone), await recordOf(phone))).rejects.toThrow('Redis did not answer')
    expect(after.events).toEqual(['ended phone'])
  })
})
