import request from 'supertest'
import { makeApp } from '../support/app'
import { expectCookie, expectNoCookies, findCookie } from '../support/cookies'
import { csrfPair } from '../support/csrf'
import { clockAt } from '../support/clock'
import { VALID_AT, VECTORS, sessionCookie, sessionCookies } from '../support/sessions'

describe('POST /session (update)', () => {
  clockAt(VALID_AT)

  it('shows the client data to the callbacks, keeps only what the update callback returns', async () => {
    const { app } = makeApp({
      callbacks: {
        update: ({ record, newData }) => ({ ...record.data, theme: (newData as { theme?: string }).theme }),
        session: ({ session, record, trigger, newData }) => ({
          ...session,
          theme: record.data?.theme,
          trigger,
          sent: newData,
        }),
      },
    })
    const { token, cookie } = await csrfPair(app)
    const session = sessionCookie(VECTORS.ada)
    const res = await request(app)
      .post('/api/auth/session')
      .set('Cookie', `${cookie}; ${session}`)
      .send({ csrfToken: token, data: { theme: 'dark', role: 'admin' } })
      .expect(200)
    expect(res.body).toMatchObject({ theme: 'dark', trigger: 'update', sent: { theme: 'dark', role: 'admin' } })
    const saved = expectCookie(res, 'auth.session-token')
    const after = await request(app).get('/api/auth/session').set('Cookie', `auth.session-token=${saved.value}`)
    expect(after.body).toMatchObject({ theme: 'dark', trigger: 'get' })
  })

  it('keeps nothing the client sends when the app has no update callback', async () => {
    const { app } = makeApp()
    const { token, cookie } = await csrfPair(app)
    const res = await request(app)
      .post('/api/auth/session')
      .set('Cookie', `${cookie}; ${sessionCookie(VECTORS.ada)}`)
      .send({ csrfToken: token, data: { name: 'Mallory' } })
      .expect(200)
    expect(res.body.user.name).toBe('Ada')
    expectNoCookies(res)
  })

  it('answers 400 {} and changes nothing with a missing or wrong CSRF token', async () => {
    const { app, logs } = makeApp({ callbacks: { update: () => ({ changed: true }) } })
    const { cookie } = await csrfPair(app)
    const session = sessionCookie(VECTORS.ada)
    for (const body of [{ data: {} }, { csrfToken: 'wrong', data: {} }]) {
      const res = await request(app)
        .post('/api/auth/session')
        .set('Cookie', `${cookie}; ${session}`)
        .send(body)
        .expect(400, {})
      expectNoCookies(res)
    }
    expect(logs.filter((entry) => entry.event === 'csrf.invalid')).toHaveLength(2)
  })

  it('drops chunks a smaller session no longer needs', async () => {
    const { app } = makeApp({ callbacks: { update: () => ({}) } })
    const { token, cookie } = await csrfPair(app)
    const res = await request(app)
      .post('/api/auth/session')
      .set('Cookie', `${cookie}; ${sessionCookie(VECTORS.large)}`)
      .send({ csrfToken: token })
      .expect(200)
    expectCookie(res, 'auth.session-token', { cleared: false })
    const sentChunks = Object.keys(sessionCookies(VECTORS.large))
    expect(sentChunks.length).toBeGreaterThan(1)
    for (const name of sentChunks) expectCookie(res, name, { cleared: true })
    expect(findCookie(res, `auth.session-token.${sentChunks.length}`)).toBeUndefined()
  })

  it('answers {} without a session', async () => {
    const { app } = makeApp()
    const { token, cookie } = await csrfPair(app)
    await request(app).post('/api/auth/session').set('Cookie', cookie).send({ csrfToken: token }).expect(200, {})
  })

  it('refuses to keep more data than the session cookies hold: the session stays as it was, no cookie is written', async () => {
    const { app, logs } = makeApp({
      callbacks: {
        update: ({ newData }) => ({ theme: String((newData as { theme?: unknown }).theme) }),
        session: ({ session, record }) => ({ ...session, theme: record.data?.theme ?? null }),
      },
    })
    const { token, cookie } = await csrfPair(app)
    const res = await request(app)
      .post('/api/auth/session')
      .set('Cookie', `${cookie}; ${sessionCookie(VECTORS.ada)}`)
      .send({ csrfToken: token, data: { theme: 'a'.repeat(30_000) } })
      .expect(200)
    expect(res.body).toMatchObject({ user: { name: 'Ada' }, theme: null })
    expect(findCookie(res, 'auth.session-token')).toBeUndefined()
    expect(findCookie(res, 'auth.session-token.0')).toBeUndefined()
    expect(logs).toContainEqual(
      expect.objectContaining({
        level: 'error',
        event: 'callback.error',
        message: expect.stringContaining('more data than a session cookie holds'),
      }),
    )
  })

  it.each([
    ['a BigInt', { n: 1n }],
    ['a toJSON that answers a number', { toJSON: () => 1 }],
    ['an array', ['x']],
  ])(
    'leaves the session as it was when the update callback answers data that cannot be sealed (%s)',
    async (_label, answer) => {
      const { app, logs } = makeApp({ callbacks: { update: () => answer as never } })
      const { token, cookie } = await csrfPair(app)
      const res = await request(app)
        .post('/api/auth/session')
        .set('Cookie', `${cookie}; ${sessionCookie(VECTORS.ada)}`)
        .send({ csrfToken: token, data: {} })
        .expect(200)
      expect(res.body).toMatchObject({ user: { name: 'Ada' } })
      expect(findCookie(res, 'auth.session-token')).toBeUndefined()
      expect(logs).toContainEqual(expect.objectContaining({ level: 'error', event: 'callback.error' }))
    },
  )
})
