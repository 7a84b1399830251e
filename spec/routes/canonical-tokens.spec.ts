import session from 'express-session'
import request from 'supertest'
import { makeApp } from '../support/app'
import { clockAt } from '../support/clock'
import { cookieHeader, expectCookie } from '../support/cookies'
import { csrfPair } from '../support/csrf'
import { jweSpellings, respelling, respellings } from '../support/respell'
import { ADA, VALID_AT, VECTORS, sessionCookie } from '../support/sessions'
import { sidOf } from '../support/store-contract'

// A session, a CSRF cookie or a database token is one exact string: the same bytes spelled another
// way (the spare bits of a part's last character set, a character past its last group) are refused,
// like any other value the service did not issue, and leave nothing remembered behind.

type App = ReturnType<typeof makeApp>['app']
const getSession = (app: App, cookie: string) => request(app).get('/api/auth/session').set('Cookie', cookie)

/** A few twins of the vector, each part respelled on its own and all of them together. */
function sessionTwins(token: string): string[] {
  const all = jweSpellings(token)
  const [header, , iv, ciphertext, tag] = token.split('.') as [string, string, string, string, string]
  return [
    `${header}..${respelling(iv, 7)}.${ciphertext}.${tag}`,
    `${header}..${iv}.${respelling(ciphertext, 1)}.${tag}`,
    `${header}..${iv}.${ciphertext}.${respelling(tag, 5)}`,
    all[all.length - 1]!,
  ]
}

describe('a session cookie spelled another way', () => {
  clockAt(VALID_AT)

  it('gets no session from GET /session, before or after the real cookie was answered, and is cleared', async () => {
    const { app } = makeApp()
    for (const twin of sessionTwins(VECTORS.ada)) {
      const refused = await getSession(app, sessionCookie(twin)).expect(200, {})
      expectCookie(refused, 'auth.session-token', { cleared: true })
    }
    expect((await getSession(app, sessionCookie(VECTORS.ada))).body.user).toEqual(ADA)
    for (const twin of sessionTwins(VECTORS.ada)) await getSession(app, sessionCookie(twin)).expect(200, {})
  })

  it('is refused in chunks too', async () => {
    const { app } = makeApp()
    const [twin] = sessionTwins(VECTORS.large)
    await getSession(app, sessionCookie(twin!)).expect(200, {})
    expect((await getSession(app, sessionCookie(VECTORS.large))).body.user).toBeDefined()
  })
})

describe('a CSRF cookie or token spelled another way', () => {
  it('does not let a POST through: its MAC and its token each have one spelling', async () => {
    const { app } = makeApp()
    const { token, value } = await csrfPair(app)
    const [issued, mac] = value.split('|') as [string, string]
    const post = (cookieValue: string, csrfToken: string) =>
      request(app)
        .post('/api/auth/signout')
        .set('Cookie', cookieHeader({ 'auth.csrf-token': cookieValue }))
        .type('form')
        .send({ csrfToken, json: 'true' })
    for (const twin of respellings(mac)) await post(`${issued}|${twin}`, token).expect(403)
    for (const twin of respellings(issued)) {
      await post(`${twin}|${mac}`, twin).expect(403)
      await post(value, twin).expect(403)
    }
    expect((await post(value, token).expect(200)).body.url).toBe('http://localhost:3000/')
  })
})

describe('a database session token spelled another way', () => {
  const NOW = Math.floor(Date.now() / 1000)
  const TOKEN = Buffer.alloc(32, 7).toString('base64url')

  it('gets no session, and the store is never asked about it', async () => {
    const store = new session.MemoryStore()
    const claims = { sub: 'email:ada@example.com', user: ADA, iat: NOW, exp: NOW + 3600, auth_time: NOW }
    store.set(sidOf(TOKEN), { cookie: { expires: new Date((NOW + 3600) * 1000) }, ...claims } as never)
    // A session is valid only while listed: with no index shared through Redis, the listing is an
    // entry beside the record in the same store (lib/core/session/store-listing.ts).
    store.set(`listed.${sidOf(TOKEN)}`, { cookie: { expires: new Date((NOW + 3600) * 1000) }, listed: true } as never)
    const asked: string[] = []
    const get = store.get.bind(store)
    store.get = (sid, callback) => {
      asked.push(sid)
      get(sid, callback)
    }
    const { app } = makeApp({ session: { strategy: 'database', store } })
    for (const twin of respellings(TOKEN)) await getSession(app, sessionCookie(twin)).expect(200, {})
    expect(asked).toEqual([])
    expect((await getSession(app, sessionCookie(TOKEN))).body.user).toEqual(ADA)
    expect(asked.filter((sid) => !sid.startsWith('listed.'))).toEqual([sidOf(TOKEN)])
  })
})
