import request from 'supertest'
import { makeApp } from '../support/app'
import { clockAt, setClock } from '../support/clock'
import { expectCookie, expectNoCookies, findCookie, setCookies } from '../support/cookies'
import { DAY, SIGNED_IN_AT, VALID_AT, VECTORS, sessionCookie } from '../support/sessions'

const iso = (seconds: number) => new Date(seconds * 1000).toISOString()

/** Changes one character in the middle of the ciphertext part (the last character of a part may only carry padding bits). */
function tamperCiphertext(token: string): string {
  const parts = token.split('.')
  const ciphertext = parts[3]!
  const middle = Math.floor(ciphertext.length / 2)
  parts[3] = ciphertext.slice(0, middle) + (ciphertext[middle] === 'A' ? 'B' : 'A') + ciphertext.slice(middle + 1)
  return parts.join('.')
}

describe('GET /session', () => {
  // Every vector but `expired` is valid at VALID_AT; a test that needs another time moves the clock.
  clockAt(VALID_AT)

  it('answers {} with no cookie, sets nothing, and is never cached', async () => {
    const { app } = makeApp()
    const res = await request(app).get('/api/auth/session').expect(200, {})
    expect(res.headers['cache-control']).toBe('private, no-cache, no-store')
    expectNoCookies(res)
  })

  it('answers the client-safe session object: user and expires, not the user id or server data', async () => {
    const { app } = makeApp()
    const res = await request(app)
      .get('/api/auth/session')
      .set('Cookie', sessionCookie(VECTORS.adaWithToken))
      .expect(200)
    expect(res.body).toEqual({
      user: { name: 'Ada', email: 'ada@example.com', image: 'https://example.com/ada.png' },
      expires: iso(SIGNED_IN_AT + 30 * DAY),
    })
    expect(JSON.stringify(res.body)).not.toMatch(/github:1|secret-token/)
  })

  it('lets the session callback reshape the object, with the server-side record at hand', async () => {
    const { app } = makeApp({
      callbacks: {
        session: ({ session, record }) => ({ ...session, userId: record.userId, token: record.data?.accessToken }),
      },
    })
    const res = await request(app).get('/api/auth/session').set('Cookie', sessionCookie(VECTORS.adaWithToken))
    expect(res.body).toMatchObject({ userId: 'github:1', token: 'secret-token', user: { name: 'Ada' } })
  })

  it.each([
    ['expired', () => sessionCookie(VECTORS.expired)],
    ['sealed with another secret', () => sessionCookie(VECTORS.otherSecret)],
    ['tampered', () => sessionCookie(tamperCiphertext(VECTORS.ada))],
    ['truncated', () => sessionCookie(VECTORS.ada).slice(0, -10)],
    ['not base64url', () => 'auth.session-token=%ZZ%%not*base64'],
    ['a j: JSON cookie', () => 'auth.session-token=j:{"sub":"github:1"}'],
    ['a bad j: value', () => 'auth.session-token=j:['],
    ['huge', () => `auth.session-token=${'A'.repeat(12000)}`],
    ['a user of the wrong shape', () => sessionCookie(VECTORS.wrongUser)],
  ])('answers {} and clears a cookie that is %s', async (_label, makeCookie) => {
    const { app } = makeApp()
    const res = await request(app).get('/api/auth/session').set('Cookie', makeCookie()).expect(200, {})
    expectCookie(res, 'auth.session-token', { cleared: true })
  })

  it('answers null instead of {} for the v5 client', async () => {
    const { app } = makeApp({ nextAuthClient: 'v5' })
    const res = await request(app).get('/api/auth/session').expect(200)
    expect(res.text).toBe('null')
  })

  it('renews the cookie only when it is older than updateAge (rolling expiry)', async () => {
    const { app } = makeApp({ session: { maxAge: 3600, updateAge: 60 } })
    const cookie = sessionCookie(VECTORS.oneHour)
    setClock(SIGNED_IN_AT + 10)
    const fresh = await request(app).get('/api/auth/session').set('Cookie', cookie)
    expect(fresh.body.user.name).toBe('Ada')
    expectNoCookies(fresh)
    setClock(SIGNED_IN_AT + 120)
    const due = await request(app).get('/api/auth/session').set('Cookie', cookie)
    const renewed = expectCookie(due, 'auth.session-token', { httpOnly: true, sameSite: 'Lax' })
    expect(renewed.attributes['max-age']).toBe('3600')
    expect(due.body.expires).toBe(iso(SIGNED_IN_AT + 120 + 3600))
  })

  it('splits a large session over several cookies and reads it back', async () => {
    const { app } = makeApp({
      callbacks: { session: ({ session, record }) => ({ ...session, bio: record.data?.bio }) },
    })
    const cookie = sessionCookie(VECTORS.large)
    expect(cookie).toMatch(/auth\.session-token\.0=.*; auth\.session-token\.1=/)
    const res = await request(app).get('/api/auth/session').set('Cookie', cookie).expect(200)
    expect(res.body.bio).toBe('b'.repeat(6000))
  })

  it('fires events.session for a valid session only', async () => {
    const seen: string[] = []
    const { app } = makeApp({
      events: {
        session: ({ record }) => {
          seen.push(record.userId)
        },
      },
    })
    await request(app).get('/api/auth/session')
    await request(app).get('/api/auth/session').set('Cookie', sessionCookie(VECTORS.ada))
    expect(seen).toEqual(['github:1'])
  })

  // Every https cookie without a Domain override is __Host-: no sibling subdomain can plant it.
  it('keeps the cookie attributes of an https service on renewal: Secure and __Host-', async () => {
    const { app } = makeApp({ url: 'https://example.com/api/auth', session: { maxAge: 3600, updateAge: 1 } })
    const cookie = sessionCookie(VECTORS.oneHour, '__Host-auth.session-token')
    const res = await request(app).get('/api/auth/session').set('Cookie', cookie).expect(200)
    expect(res.body.user?.name).toBe('Ada')
    expectCookie(res, '__Host-auth.session-token', { secure: true, httpOnly: true, path: '/' })
    expect(findCookie(res, 'auth.session-token')).toBeUndefined()
    expect(setCookies(res)).toHaveLength(1)
  })
})
