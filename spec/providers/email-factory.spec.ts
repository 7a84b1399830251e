import request from 'supertest'
import { email, type VerificationRecord, type VerificationStore } from '../../lib'
import { makeApp } from '../support/app'
import { configError } from '../support/config-error'
import { csrfPair } from '../support/csrf'

const SEND = { sendVerificationRequest: () => undefined }

describe('email()', () => {
  it('has the id email, the name Email and the documented defaults', () => {
    const provider = email({ from: 'auth@localhost', ...SEND })
    expect(provider).toMatchObject({
      id: 'email',
      name: 'Email',
      type: 'email',
      maxAge: 600,
      confirm: true,
      sendTimeout: 10_000,
    })
    expect(provider.rateLimits).toEqual({ addressPerMinute: 1, addressPerHour: 5, ipPerHour: 20 })
  })

  it.each([
    ['no way to send', { from: 'a@example.com' }, /needs `server`/],
    ['two ways to send', { from: 'a@example.com', server: 'smtp://localhost:25', ...SEND }, /one way to send/],
    [
      'a server that is not SMTP',
      { from: 'a@example.com', server: 'https://mail.example.com' },
      /smtp:\/\/ or smtps:\/\//,
    ],
    ['a transport without sendMail', { from: 'a@example.com', transport: {} }, /must be a nodemailer transport/],
    [
      'a sender with a line break',
      { from: 'a@example.com\r\nBcc: evil@example.com', ...SEND },
      /`providers\["email"\]\.from`/,
    ],
    ['no sender', { ...SEND }, /`providers\["email"\]\.from`/],
    ['a name that is not a string', { from: 'a@example.com', name: 42, ...SEND }, /`providers\["email"\]\.name`/],
    [
      'a store without take()',
      { from: 'a@example.com', store: { put() {}, remove() {} }, ...SEND },
      /`providers\["email"\]\.store`/,
    ],
    [
      'a limit of zero',
      { from: 'a@example.com', rateLimits: { addressPerHour: 0 }, ...SEND },
      /rateLimits\.addressPerHour/,
    ],
    ['a maxAge in words', { from: 'a@example.com', maxAge: '10m', ...SEND }, /`providers\["email"\]\.maxAge`/],
    [
      'an unknown option',
      { from: 'a@example.com', sever: 'smtp://localhost', ...SEND },
      /Unknown option `providers\["email"\]\.sever`/,
    ],
  ])('refuses %s at start-up, naming the option', (_label, options, message) => {
    expect(configError(() => email(options as never))).toMatch(message)
  })

  it('keeps links in the store the app gives it, and then does not warn about memory', async () => {
    const kept = new Map<string, VerificationRecord>()
    const store: VerificationStore = {
      put: async (key, record) => void kept.set(key, record),
      take: async (key) => {
        const record = kept.get(key) ?? null
        kept.delete(key)
        return record
      },
      remove: async (key) => void kept.delete(key),
    }
    const links: string[] = []
    const { app, logs } = makeApp({
      providers: [email({ from: 'auth@localhost', store, sendVerificationRequest: ({ url }) => void links.push(url) })],
    })
    const { token, cookie } = await csrfPair(app)
    await request(app)
      .post('/api/auth/signin/email')
      .set('Cookie', cookie)
      .type('form')
      .send({ csrfToken: token, email: 'ada@example.com' })
      .expect(302)
    expect(links).toHaveLength(1)
    expect([...kept.values()]).toEqual([{ identifier: 'ada@example.com', expires: expect.any(Number) }])
    // Only a keyed hash of the token is kept: the link's token is not a key of the store.
    expect(kept.has(new URL(links[0]!).searchParams.get('token')!)).toBe(false)
    expect(logs.filter((entry) => entry.event === 'config.warning')).toEqual([])
  })

  it('warns at start-up that links kept in memory do not survive a restart', () => {
    const { logs } = makeApp({ providers: [email({ from: 'auth@localhost', ...SEND })] })
    expect(logs).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        event: 'config.warning',
        message: expect.stringContaining('do not survive a restart'),
      }),
    )
  })
})
