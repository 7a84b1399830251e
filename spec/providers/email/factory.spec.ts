import request from 'supertest'
import { auth, email, type VerificationRecord, type VerificationStore } from '../../../lib'
import { makeApp, SECRET } from '../../support/app'
import { configError } from '../../support/config-error'
import { csrfPair } from '../../support/csrf'

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
    [
      'a normalizeIdentifier that is not a function',
      { from: 'a@example.com', normalizeIdentifier: 'lowercase', ...SEND },
      /`providers\["email"\]\.normalizeIdentifier` must be a function/,
    ],
    ['a maxAge in words', { from: 'a@example.com', maxAge: '10m', ...SEND }, /`providers\["email"\]\.maxAge`/],
    [
      'an unknown option',
      { from: 'a@example.com', sever: 'smtp://localhost', ...SEND },
      /Unknown option `providers\["email"\]\.sever`\. Did you mean `providers\["email"\]\.server`\?/,
    ],
    [
      "NextAuth's British spelling of normalizeIdentifier",
      { from: 'a@example.com', normaliseIdentifier: (address: string) => address, ...SEND },
      /Unknown option `providers\["email"\]\.normaliseIdentifier`\. Did you mean `providers\["email"\]\.normalizeIdentifier`\?/,
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
    // Beside the warning that supertest's Host is not `url`'s (an entry with `host`), none.
    expect(logs.filter((entry) => entry.event === 'config.warning' && entry.host === undefined)).toEqual([])
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

  it("refuses to start with trustHost and no url: a link must never be built from a request's Host", () => {
    expect(
      configError(() =>
        auth({
          secret: SECRET,
          trustHost: true,
          providers: [email({ from: 'a@example.com', ...SEND })],
          logger: false,
        }),
      ),
    ).toMatch(/`url` is required with email\(\)/)
  })
})

describe('e-mail sign-in limits and links', () => {
  const start = (options: { signIn?: () => boolean; redirect?: (p: { url: string }) => string } = {}) => {
    const links: string[] = []
    const asked: string[] = []
    const { app, logs } = makeApp({
      providers: [
        email({
          from: 'auth@localhost',
          rateLimits: { addressPerMinute: 2, ipPerHour: 3 },
          sendVerificationRequest: ({ url }) => void links.push(url),
        }),
      ],
      callbacks: {
        signIn: ({ user }) => {
          asked.push(String(user.email))
          return options.signIn ? options.signIn() : true
        },
        ...(options.redirect ? { redirect: options.redirect } : {}),
      },
    })
    const ask = async (address: string, callbackUrl = '/') => {
      const { token, cookie } = await csrfPair(app)
      return request(app)
        .post('/api/auth/signin/email')
        .set('Cookie', cookie)
        .type('form')
        .send({ csrfToken: token, email: address, callbackUrl })
    }
    return { app, logs, links, asked, ask }
  }

  it('counts the IP limit before the signIn callback is asked, so its answers cannot be probed at will', async () => {
    const { ask, asked } = start({ signIn: () => false })
    for (let i = 0; i < 3; i++)
      expect((await ask(`user${i}@example.com`)).headers.location).toMatch(/error=AccessDenied/)
    const over = await ask('user9@example.com')
    expect(over.headers.location).toBe('http://localhost:3000/api/auth/verify-request?provider=email&type=email')
    expect(asked).toEqual(['user0@example.com', 'user1@example.com', 'user2@example.com'])
  })

  it('counts one mailbox once, whatever the case of its address', async () => {
    const { ask, links, logs } = start()
    for (const address of ['Victim@example.com', 'victim@example.com', 'VICTIM@example.com']) await ask(address)
    expect(links).toHaveLength(2)
    expect(logs).toContainEqual(expect.objectContaining({ event: 'email.rate_limited', limit: 'address' }))
  })

  it("runs the app's redirect callback again when the link is spent (the link's callbackUrl is anyone's to change)", async () => {
    const { app, ask, links } = start({
      redirect: ({ url }) => (new URL(url).pathname.startsWith('/admin') ? 'http://localhost:3000/' : url),
    })
    await ask('ada@example.com', '/welcome')
    const link = new URL(links[0]!)
    link.searchParams.set('callbackUrl', 'http://localhost:3000/admin/secret')
    const page = await request(app)
      .get(link.pathname + link.search)
      .expect(200)
    const cookie = String(page.headers['set-cookie']).split(';')[0]!
    const csrfToken = /name="csrfToken" value="([^"]+)"/.exec(page.text)![1]!
    const fields = Object.fromEntries(link.searchParams)
    const spent = await request(app)
      .post('/api/auth/callback/email')
      .set('Cookie', cookie)
      .type('form')
      .send({ ...fields, csrfToken })
      .expect(302)
    expect(spent.headers.location).toBe('http://localhost:3000/')
  })

  it('shows no confirm page for a link whose address is not one the service could have sent to', async () => {
    const { app, ask, links } = start()
    await ask('ada@example.com')
    const link = new URL(links[0]!)
    link.searchParams.set('email', 'your account is locked, call +1 555 0100')
    const res = await request(app)
      .get(link.pathname + link.search)
      .expect(302)
    expect(res.headers.location).toBe('http://localhost:3000/api/auth/error?error=Verification')
  })
})
