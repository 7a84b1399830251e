import type { CookieDef } from '../../lib/infra/config/cookies'
import { keyRing } from '../../lib/infra/crypto/keys'
import { cookieStore } from '../../lib/core/session/cookie-store'
import { CookieTransport } from '../../lib/core/session/cookie-transport'
import { createSessionManager, type SessionRevocations } from '../../lib/core/session/manager'
import type { SessionTransport } from '../../lib/core/session/transport'
import { memoryState } from '../../lib/infra/store/memory'
import { setCookies } from '../support/cookies'
import { fakeResponse } from '../support/fake-response'

// Sign-out everywhere without Redis: the revocation times kept in this process are bounded, and
// when one must be dropped to make room, cookie sessions fail closed: a session signed in before
// the dropped revocation is refused whoever it belongs to, never let back in.
const DEF: CookieDef = { name: 'auth.session-token', attrs: '; Path=/; HttpOnly; SameSite=Lax' }
const TIMING = { maxAge: 3600, updateAge: 600, maxLifetime: 86_400 }
const BOUND = 3

function cookieSessions(revocations: SessionRevocations) {
  const sessions = createSessionManager(
    cookieStore(keyRing(['a-secret-of-at-least-32-characters!!'], 'session')),
    TIMING,
    revocations,
  )
  return {
    sessions,
    /** A sign-in: the cookie the browser would hold. */
    signIn: async (userId: string): Promise<SessionTransport> => {
      const { res, sent } = fakeResponse()
      await sessions.create(new CookieTransport({}, DEF, res), { userId, user: { name: userId } })
      const cookies = Object.fromEntries(setCookies(sent).map((cookie) => [cookie.name, cookie.value]))
      return new CookieTransport(cookies, DEF)
    },
  }
}

describe('revocation times in memory, past their bound', () => {
  it("keeps refusing a victim's stolen cookie when other users' revocations push the victim's out", async () => {
    const { revocations } = memoryState(TIMING.maxLifetime, { revocations: BOUND })
    const { sessions, signIn } = cookieSessions(revocations)
    const stolen = await signIn('victim')
    const bystander = await signIn('bystander')
    const record = await sessions.read(stolen)
    expect(record).toMatchObject({ userId: 'victim' })

    await sessions.revokeAll('victim')
    expect(await sessions.read(stolen)).toBeNull()
    // Whoever can cause revocations (sign-out everywhere of accounts of their own) floods them.
    for (let i = 0; i < 2 * BOUND; i++) await sessions.revokeAll(`flood-${i}`)

    expect(await sessions.read(stolen)).toBeNull()
    // The hot path's answer from memory (a remembered GET /session reply) refuses it too.
    expect((revocations as SessionRevocations).peek?.('victim')).toBeGreaterThan(record!.createdAt)
    // Failing closed: everyone signed in before the dropped revocation signs in again.
    expect(await sessions.read(bystander)).toBeNull()
  })

  it('accepts sessions signed in after the flood, for the victim and everyone else', async () => {
    const { revocations } = memoryState(TIMING.maxLifetime, { revocations: BOUND })
    const { sessions, signIn } = cookieSessions(revocations)
    await sessions.revokeAll('victim')
    for (let i = 0; i < 2 * BOUND; i++) await sessions.revokeAll(`flood-${i}`)

    expect(await sessions.read(await signIn('victim'))).toMatchObject({ userId: 'victim' })
    expect(await sessions.read(await signIn('bystander'))).toMatchObject({ userId: 'bystander' })
    expect(await sessions.read(await signIn('flood-0'))).toMatchObject({ userId: 'flood-0' })
  })

  it('refuses nobody else while every revocation fits', async () => {
    const { revocations } = memoryState(TIMING.maxLifetime, { revocations: BOUND })
    const { sessions, signIn } = cookieSessions(revocations)
    const bystander = await signIn('bystander')
    for (let i = 0; i < BOUND; i++) await sessions.revokeAll(`user-${i}`)
    expect(await sessions.read(bystander)).toMatchObject({ userId: 'bystander' })
  })
})

describe('two revocations within one second', () => {
  it('the second ends a session signed in after the first (times are whole seconds)', async () => {
    const { revocations } = memoryState(TIMING.maxLifetime)
    const { sessions, signIn } = cookieSessions(revocations)
    await sessions.revokeAll('ada')
    const between = await signIn('ada')
    expect(await sessions.read(between)).toMatchObject({ userId: 'ada' })
    await sessions.revokeAll('ada')
    expect(await sessions.read(between)).toBeNull()
    // And a sign-in after the second still holds.
    expect(await sessions.read(await signIn('ada'))).toMatchObject({ userId: 'ada' })
  })
})
