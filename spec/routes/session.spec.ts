import { EncryptJWT } from 'jose'
import request from 'supertest'
import { deriveKey } from '../../lib/crypto/keys'
import { makeApp, SECRET } from '../support/app'
import { expectCookie, expectNoCookies, findCookie, setCookies } from '../support/cookies'
import { sessionCookieFor } from '../support/sessions'

const ada = { id: 'github:1', name: 'Ada', email: 'ada@example.com', image: 'https://example.com/ada.png' }
const now = () => Math.floor(Date.now() / 1000)

/** A session cookie sealed by the jose library, with chosen claims. */
async function joseSession(claims: { iat: number; exp: number }, user: object = { name: 'Ada' }) {
  const token = await new EncryptJWT({ user })
    .setProtectedHeader({ alg: 'dir', enc: 'A256GCM' })
    .setSubject('github:1')
    .setIssuedAt(claims.iat)
    .setExpirationTime(claims.exp)
    .encrypt(deriveKey(SECRET, 'session'))
  return `auth.session-token=${token}`
}

/** Changes one character in the middle of the ciphertext part (the last character of a part may only carry padding bits). */
function tamperCiphertext(cookie: string): string {
  const [name, token] = cookie.split('=') as [string, string]
  const parts = token.split('.')
  const ciphertext = parts[3]!
  const middle = Math.floor(ciphertext.length / 2)
  parts[3] = ciphertext.slice(0, middle) + (ciphertext[middle] === 'A' ? 'B' : 'A') + ciphertext.slice(middle + 1)
  return `${name}=${parts.join('.')}`
}

describe('GET /session', () => {
  it('answers {} with no cookie, sets nothing, and is never cached', async () => {
    const { app } = makeApp()
    const res = await request(app).get('/api/auth/session').expect(200, {})
    expect(res.headers['cache-control']).toBe('private, no-cache, no-store')
    expectNoCookies(res)
  })

  it('answers the client-safe session object: user and expires, not the user id or server data', async () => {
    const { app } = makeApp()
    const cookie = await sessionCookieFor(ada, { data: { accessToken: 'secret-token' } })
    const res = await request(app).get('/api/auth/session').set('Cookie', cookie).expect(200)
    expect(res.body).toEqual({ user: { name: 'Ada', email: 'ada@example.com', image: 'https://example.com/ada.png' }, expires: expect.any(String) })
    expect(new Date(res.body.expires).getTime()).toBeGreaterThan(Date.now() + 29 * 86400_000)
    expect(JSON.stringify(res.body)).not.toMatch(/github:1|secret-token/)
  })

  it('lets the session callback reshape the object, with the server-side record at hand', async () => {
    const { app } = makeApp({ callbacks: { session: ({ session, record }) => ({ ...session, userId: record.userId, token: record.data?.accessToken }) } })
    const cookie = await sessionCookieFor(ada, { data: { accessToken: 'at-1' } })
    const res = await request(app).get('/api/auth/session').set('Cookie', cookie)
    expect(res.body).toMatchObject({ userId: 'github:1', token: 'at-1', user: { name: 'Ada' } })
  })

  it.each([
    ['expired', () => joseSession({ iat: now() - 100, exp: now() - 1 })],
    ['sealed with another secret', () => sessionCookieFor(ada, { secret: 'z'.repeat(40) })],
    ['tampered', async () => tamperCiphertext(await sessionCookieFor(ada))],
    ['truncated', async () => (await sessionCookieFor(ada)).slice(0, -10)],
    ['not base64url', () => Promise.resolve('auth.session-token=%ZZ%%not*base64')],
    ['a j: JSON cookie', () => Promise.resolve('auth.session-token=j:{"sub":"github:1"}')],
    ['a bad j: value', () => Promise.resolve('auth.session-token=j:[')],
    ['huge', () => Promise.resolve(`auth.session-token=${'A'.repeat(12000)}`)],
    ['a user of the wrong shape', () => joseSession({ iat: now(), exp: now() + 60 }, { name: 42 })],
  ])('answers {} and clears a cookie that is %s', async (_label, makeCookie) => {
    const { app } = makeApp()
    const res = await request(app).get('/api/auth/session').set('Cookie', await makeCookie()).expect(200, {})
    expectCookie(res, 'auth.session-token', { cleared: true })
  })

  it('answers null instead of {} for the v5 client', async () => {
    const { app } = makeApp({ nextAuthClient: 'v5' })
    const res = await request(app).get('/api/auth/session').expect(200)
    expect(res.text).toBe('null')
  })

  it('renews the cookie only when it is older than updateAge (rolling expiry)', async () => {
    const { app } = makeApp({ session: { maxAge: 3600, updateAge: 60 } })
    const fresh = await request(app).get('/api/auth/session').set('Cookie', await joseSession({ iat: now() - 10, exp: now() + 3590 }))
    expect(fresh.body.user.name).toBe('Ada')
    expectNoCookies(fresh)
    const due = await request(app).get('/api/auth/session').set('Cookie', await joseSession({ iat: now() - 120, exp: now() + 3480 }))
    const renewed = expectCookie(due, 'auth.session-token', { httpOnly: true, sameSite: 'Lax' })
    expect(Number(renewed.attributes['max-age'])).toBeGreaterThanOrEqual(3599)
    expect(new Date(due.body.expires).getTime()).toBeGreaterThan(Date.now() + 3590_000)
  })

  it('splits a large session over several cookies and reads it back', async () => {
    const { app } = makeApp({ callbacks: { session: ({ session, record }) => ({ ...session, bio: record.data?.bio }) } })
    const bio = 'b'.repeat(6000)
    const cookie = await sessionCookieFor(ada, { data: { bio } })
    expect(cookie).toMatch(/auth\.session-token\.0=.*; auth\.session-token\.1=/)
    const res = await request(app).get('/api/auth/session').set('Cookie', cookie).expect(200)
    expect(res.body.bio).toBe(bio)
  })

  it('fires events.session for a valid session only', async () => {
    const seen: string[] = []
    const { app } = makeApp({ events: { session: ({ record }) => { seen.push(record.userId) } } })
    await request(app).get('/api/auth/session')
    await request(app).get('/api/auth/session').set('Cookie', await sessionCookieFor(ada))
    expect(seen).toEqual(['github:1'])
  })

  it('keeps the cookie attributes of an https service on renewal: Secure and __Secure-', async () => {
    const { app } = makeApp({ url: 'https://example.com/api/auth', session: { maxAge: 3600, updateAge: 1 } })
    const cookie = (await sessionCookieFor(ada, { secure: true, maxAge: 3600 })).replace('=', '=')
    expect(cookie.startsWith('__Secure-auth.session-token=')).toBe(true)
    await new Promise((resolve) => setTimeout(resolve, 1100))
    const res = await request(app).get('/api/auth/session').set('Cookie', cookie).expect(200)
    expect(res.body.user.name).toBe('Ada')
    expectCookie(res, '__Secure-auth.session-token', { secure: true, httpOnly: true })
    expect(findCookie(res, 'auth.session-token')).toBeUndefined()
    expect(setCookies(res)).toHaveLength(1)
  })
})
