import { createHash } from 'node:crypto'
import session from 'express-session'
import { email, type AuthOptions } from '../../lib'
import { callStore } from '../../lib/infra/store/express-session-store'
import { serve } from '../support/app'
import { Browser } from '../support/browser'
import { CookieJar } from '../support/cookie-jar'
import { FROM, later, mailedLink, newAddress, stopAll, useLink, type EmailService } from '../support/email-harness'
import { sharedRedisForFile } from '../support/redis'
import { startSmtp } from '../support/smtp'

/**
 * A user's sessions as devices, over HTTP with real e-mail sign-ins, for every database store
 * configuration: two browsers of one user are listed with where they signed in from, the app ends
 * one of them by its handle, `POST /signout` with `others=true` ends all but the current one, a
 * handle that is not the user's ends nothing, and an update racing a revocation cannot bring the
 * session back. Cookie sessions cannot be listed, and `others=true` re-issues the current one.
 */

/** A browser whose every request says who it is: its User-Agent, and the address a proxy saw. */
class DeviceJar extends CookieJar {
  constructor(
    private readonly userAgent: string,
    private readonly forwardedFor: string,
  ) {
    super()
  }

  override fetch(url: string | URL, init: RequestInit = {}, request: { crossSite?: boolean } = {}) {
    const headers = new Headers(init.headers)
    headers.set('user-agent', this.userAgent)
    headers.set('x-forwarded-for', this.forwardedFor)
    return super.fetch(url, { ...init, headers }, request)
  }
}

const sidOf = (token: string) => createHash('sha256').update(token).digest('base64url')
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const db = sharedRedisForFile('devices')

afterEach(() => stopAll())

interface Configuration {
  options: () => AuthOptions
  /** What the store holds under a session id (null or undefined: nothing). */
  stored: (sid: string) => Promise<unknown>
}

const memoryStore = new session.MemoryStore()
const ownStore = new session.MemoryStore()
const inStore = (store: session.MemoryStore) => (sid: string) => callStore((done) => store.get(sid, done))

const CONFIGURATIONS: Array<[string, Configuration]> = [
  [
    "Redis's own store",
    {
      options: () => ({ redis: db.client, redisKeyPrefix: db.prefix, session: { strategy: 'database' } }),
      stored: async (sid) => db.client.get(`${db.prefix}sess:${sid}`),
    },
  ],
  [
    "an app's own store",
    { options: () => ({ session: { strategy: 'database', store: memoryStore } }), stored: inStore(memoryStore) },
  ],
  [
    "an app's own store, with redis",
    {
      options: () => ({
        redis: db.client,
        redisKeyPrefix: `${db.prefix}own:`,
        session: { strategy: 'database', store: ownStore },
      }),
      stored: inStore(ownStore),
    },
  ],
]

/** The service behind a proxy it trusts, with e-mail sign-in, and an update callback a spec can hold. */
async function startService(options: AuthOptions, beforeUpdate: () => Promise<void> = async () => undefined) {
  const smtp = await startSmtp()
  later(() => smtp.close())
  const served = await serve(
    {
      providers: [
        email({
          from: FROM,
          server: smtp.url,
          rateLimits: { addressPerMinute: 20, addressPerHour: 100, ipPerHour: 1000 },
        }),
      ],
      ...options,
      session: { ...options.session, maxAge: 3600, updateAge: 600 },
      callbacks: {
        update: async ({ newData }) => {
          await beforeUpdate()
          return { theme: String((newData as { theme?: unknown } | null)?.theme) }
        },
      },
    },
    { setup: (app) => app.set('trust proxy', true) },
  )
  later(() => served.close())
  return { ...served, smtp } satisfies EmailService
}

async function signIn(service: EmailService, address: string, userAgent: string, forwardedFor: string) {
  const browser = new Browser(service, new DeviceJar(userAgent, forwardedFor))
  expect((await useLink(service, browser, await mailedLink(service, browser, address))).status).toBe(302)
  return browser
}

function tokenOf(browser: Browser): string {
  const cookie = browser.cookie('auth.session-token')
  if (!cookie) throw new Error('no session cookie')
  return cookie.value
}

/** getSessionRecord(req) for a request of this browser to the app. */
function recordOf(service: EmailService, browser: Browser) {
  const req = {
    headers: { cookie: browser.jar.header(`${service.base}/session`)!, host: new URL(service.origin).host },
  }
  return service.router.getSessionRecord(Object.assign(req, { protocol: 'http' }) as never)
}

const LAPTOP = 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0'
const PHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0) Safari/604.1'
/** The phone's User-Agent as kept: without its tab, and cut at 256 characters. */
const PHONE_KEPT = `${PHONE}${'x'.repeat(1000)}`.slice(0, 256)

describe.each(CONFIGURATIONS)('devices with database sessions in %s', (_name, configuration) => {
  async function twoBrowsers(options: AuthOptions = configuration.options(), hold?: () => Promise<void>) {
    const service = await startService(options, hold)
    const address = newAddress()
    const laptop = await signIn(service, address, LAPTOP, '203.0.113.7')
    // The phone signs in a second later: newest first.
    await sleep(1100)
    const phone = await signIn(service, address, `${PHONE}\t${'x'.repeat(1000)}`, '2001:db8:1:2:3:4:5:6')
    return { service, laptop, phone, userId: `email:${address}` }
  }

  it('lists both browsers of a user, newest first, with their user agent and truncated address', async () => {
    const { service, userId } = await twoBrowsers()
    const sessions = await service.router.listSessions(userId)
    expect(sessions).toEqual([
      expect.objectContaining({ userAgent: PHONE_KEPT, address: '2001:db8:1:2::/64', provider: 'email' }),
      expect.objectContaining({ userAgent: LAPTOP, address: '203.0.113.7', provider: 'email' }),
    ])
    const [phone, laptop] = sessions
    expect(phone!.signedInAt).toBeGreaterThan(laptop!.signedInAt)
    for (const listed of sessions) {
      expect(listed.handle).toMatch(/^[\w-]{43}$/)
      expect(listed.renewedAt).toBeGreaterThanOrEqual(listed.signedInAt)
      expect(listed.expiresAt).toBeGreaterThan(listed.renewedAt)
    }
    expect(await service.router.listSessions('email:nobody@example.com')).toEqual([])
  })

  it("getSessionRecord(req).handle names this browser's session in listSessions, and no other", async () => {
    const { service, laptop, phone, userId } = await twoBrowsers()
    const [phoneListed, laptopListed] = await service.router.listSessions(userId)
    expect((await recordOf(service, laptop))?.handle).toBe(laptopListed!.handle)
    expect((await recordOf(service, phone))?.handle).toBe(phoneListed!.handle)
  })

  it('never gives a handle that is the cookie, its hash, or anything that opens a session', async () => {
    const { service, laptop, phone, userId } = await twoBrowsers()
    const handles = (await service.router.listSessions(userId)).map(({ handle }) => handle)
    const tokens = [tokenOf(laptop), tokenOf(phone)]
    for (const handle of handles) {
      expect([...tokens, ...tokens.map(sidOf)]).not.toContain(handle)
      const stranger = new Browser(service)
      stranger.jar.set(service.origin, `auth.session-token=${handle}; Path=/; HttpOnly; SameSite=Lax`)
      expect(await stranger.session()).toEqual({})
    }
  })

  it("revokeSession ends the other browser's session, everywhere, and not this one", async () => {
    const { service, laptop, phone, userId } = await twoBrowsers()
    const phoneToken = tokenOf(phone)
    const [phoneSession] = await service.router.listSessions(userId)
    expect(await service.router.revokeSession(userId, phoneSession!.handle)).toBe(true)
    expect(await phone.session()).toEqual({})
    expect(await configuration.stored(sidOf(phoneToken))).toBeFalsy()
    expect(await laptop.session()).toHaveProperty('user')
    expect((await service.router.listSessions(userId)).map(({ userAgent }) => userAgent)).toEqual([LAPTOP])
    // Once ended, the handle ends nothing more.
    expect(await service.router.revokeSession(userId, phoneSession!.handle)).toBe(false)
  })

  it("ends nothing for a forged handle, or another user's", async () => {
    const { service, laptop, phone, userId } = await twoBrowsers()
    const otherAddress = newAddress()
    const other = await signIn(service, otherAddress, LAPTOP, '198.51.100.1')
    const [otherSession] = await service.router.listSessions(`email:${otherAddress}`)
    const [mine] = await service.router.listSessions(userId)
    const forged = [
      otherSession!.handle,
      `${mine!.handle.slice(0, 42)}${mine!.handle.endsWith('A') ? 'B' : 'A'}`,
      sidOf(tokenOf(laptop)),
      tokenOf(phone),
      '',
      'x'.repeat(10_000),
      '__proto__',
    ]
    for (const handle of forged) expect(await service.router.revokeSession(userId, handle)).toBe(false)
    expect(await service.router.revokeSession(userId, 42 as unknown as string)).toBe(false)
    expect(await laptop.session()).toHaveProperty('user')
    expect(await phone.session()).toHaveProperty('user')
    expect(await other.session()).toHaveProperty('user')
    await expect(service.router.revokeSession('', mine!.handle)).rejects.toThrow(TypeError)
  })

  it('POST /signout with others=true ends every session of the user but this one, cookie untouched', async () => {
    const { service, laptop, phone, userId } = await twoBrowsers()
    const third = await signIn(service, userId.slice('email:'.length), 'curl/8.0', '198.51.100.2')
    const stranger = await signIn(service, newAddress(), LAPTOP, '198.51.100.3')
    const laptopToken = tokenOf(laptop)
    const res = await laptop.signOut({ others: 'true', callbackUrl: '/welcome' })
    expect(res.status).toBe(302)
    expect(res.headers.get('location')).toBe(`${service.origin}/welcome`)
    expect(res.headers.getSetCookie().filter((line) => line.startsWith('auth.session-token'))).toEqual([])
    expect(tokenOf(laptop)).toBe(laptopToken)
    expect(await laptop.session()).toHaveProperty('user')
    expect(await phone.session()).toEqual({})
    expect(await third.session()).toEqual({})
    expect(await stranger.session()).toHaveProperty('user')
    expect((await service.router.listSessions(userId)).map(({ userAgent }) => userAgent)).toEqual([LAPTOP])
    expect(service.logs).toContainEqual(expect.objectContaining({ event: 'signout.others', level: 'info' }))
  })

  it('answers others=true in JSON mode with {url}, and refuses others with everywhere', async () => {
    const { service, laptop, phone } = await twoBrowsers()
    const json = await laptop.signOut({ others: 'true', json: 'true', callbackUrl: '/welcome' })
    expect(json.status).toBe(200)
    expect(await json.json()).toEqual({ url: `${service.origin}/welcome` })
    expect(await phone.session()).toEqual({})
    const both = await laptop.jar.fetch(`${service.base}/signout`, {
      method: 'POST',
      headers: { accept: 'application/json' },
      body: new URLSearchParams({ csrfToken: await laptop.csrfToken(), others: 'true', everywhere: 'true' }),
    })
    expect(both.status).toBe(400)
    expect(await laptop.session()).toHaveProperty('user')
  })

  it('keeps a revoked session ended when an update of it was in flight', async () => {
    let entered!: () => void
    let release!: () => void
    const waiting = new Promise<void>((resolve) => (entered = resolve))
    const released = new Promise<void>((resolve) => (release = resolve))
    const { service, laptop, phone, userId } = await twoBrowsers(configuration.options(), async () => {
      entered()
      await released
      await sleep(3)
    })
    const phoneToken = tokenOf(phone)
    const csrfToken = await phone.csrfToken()
    const update = (theme: string) =>
      phone.jar
        .fetch(`${service.base}/session`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ csrfToken, data: { theme } }),
        })
        .then((res) => res.json() as Promise<Record<string, unknown>>)
    const inFlight = update('stolen')
    await waiting
    const [phoneSession] = await service.router.listSessions(userId)
    expect(await service.router.revokeSession(userId, phoneSession!.handle)).toBe(true)
    release()
    await inFlight
    // Whatever the update wrote back, the session stays ended, and its record leaves the store.
    expect(await update('again')).toEqual({})
    expect(await phone.session()).toEqual({})
    expect(await configuration.stored(sidOf(phoneToken))).toBeFalsy()
    expect(await laptop.session()).toHaveProperty('user')
    expect(await service.router.listSessions(userId)).toHaveLength(1)
  })
})

describe('devices with cookie sessions', () => {
  it('cannot list them, nor end one: listSessions and revokeSession say to use revokeSessions', async () => {
    const service = await startService({})
    await expect(service.router.listSessions('email:a@example.com')).rejects.toThrow(/revokeSessions\(userId\)/)
    await expect(service.router.revokeSession('email:a@example.com', 'x'.repeat(43))).rejects.toThrow(
      /session\.strategy 'database'/,
    )
  })

  it('getSessionRecord(req) has a null handle: a cookie session is in no list', async () => {
    const service = await startService({})
    const laptop = await signIn(service, newAddress(), LAPTOP, '203.0.113.7')
    expect(await recordOf(service, laptop)).toMatchObject({ provider: 'email', handle: null })
  })

  it('others=true revokes every session of the user and re-issues the current one', async () => {
    const service = await startService({})
    const address = newAddress()
    const laptop = await signIn(service, address, LAPTOP, '203.0.113.7')
    const phone = await signIn(service, address, PHONE, '203.0.113.8')
    const before = tokenOf(laptop)
    // A new second: the re-issued session is signed in after the revocation.
    await sleep(1100)
    expect((await laptop.signOut({ others: 'true' })).status).toBe(302)
    expect(tokenOf(laptop)).not.toBe(before)
    expect(await laptop.session()).toMatchObject({ user: { email: address } })
    expect(await phone.session()).toEqual({})
  })
})
