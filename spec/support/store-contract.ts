import { createHash, randomBytes } from 'node:crypto'
import type { AuthOptions } from '../../lib'
import { Browser } from './browser'
import { clockAt, setClock } from './clock'
import { mailedLink, newAddress, startEmailService, stopAll, useLink, type EmailService } from './email-harness'

/**
 * The contract every database session store is held to, whatever it is (express-session's
 * MemoryStore, connect-redis over Redis, over Redis Cluster, or a store of an app's own): sessions
 * made by real e-mail sign-ins over SMTP, read, renewed, updated and ended through the public routes
 * and the router's helpers, and the store itself looked at from outside.
 */
export interface StoreUnderTest {
  /** The options that put the service's sessions in the store (strategy 'database', store or redis). */
  options: AuthOptions
  /** What the store holds under a session id (undefined or null: nothing). */
  stored(sid: string): Promise<unknown>
}

/** The store key of a cookie's token, computed here from the contract (SHA-256, base64url), not by lib/. */
export function sidOf(token: string): string {
  return createHash('sha256').update(token).digest('base64url')
}

export function describeStoreContract(name: string, setup: () => Promise<StoreUnderTest>): void {
  describe(`database sessions in ${name}`, () => {
    let store: StoreUnderTest
    let service: EmailService

    beforeAll(async () => {
      store = await setup()
    })

    beforeEach(async () => {
      service = await startEmailService(
        { rateLimits: { addressPerMinute: 20, addressPerHour: 100, ipPerHour: 1000 } },
        {
          ...store.options,
          session: { ...store.options.session, maxAge: 3600, updateAge: 600 },
          callbacks: {
            session: ({ session, record }) => ({ ...session, theme: record.data?.theme ?? null }),
            update: ({ newData }) => ({ theme: String((newData as { theme?: unknown } | null)?.theme) }),
          },
        },
      )
    })

    afterEach(() => stopAll())

    /** A browser signed in as `address` through a mailed link. */
    async function signedIn(address: string): Promise<Browser> {
      const browser = new Browser(service)
      const res = await useLink(service, browser, await mailedLink(service, browser, address))
      expect(res.status).toBe(302)
      return browser
    }

    /** A browser that holds `token` as its session cookie (copied from another, or made up). */
    function plant(browser: Browser, token: string): void {
      browser.jar.set(service.origin, `auth.session-token=${token}; Path=/; HttpOnly; SameSite=Lax`)
    }

    function tokenOf(browser: Browser): string {
      const cookie = browser.cookie('auth.session-token')
      if (!cookie) throw new Error('no session cookie')
      return cookie.value
    }

    it('keeps the session in the store under the hash of a random token, and reports the stored expiry', async () => {
      const address = newAddress()
      const browser = await signedIn(address)
      const token = tokenOf(browser)
      // 32 random bytes: no JWE, nothing of the user in the cookie.
      expect(token).toMatch(/^[\w-]{43}$/)
      const record = (await store.stored(sidOf(token))) as Record<string, unknown>
      expect(record).toMatchObject({ sub: `email:${address}`, user: { email: address } })
      expect(await store.stored(token)).toBeFalsy()
      const session = await browser.session()
      expect(session).toMatchObject({ user: { email: address } })
      expect(session.expires).toBe(new Date((record.exp as number) * 1000).toISOString())
    })

    it('ends the session where it is kept on sign-out, so a copy of the cookie no longer opens', async () => {
      const browser = await signedIn(newAddress())
      const token = tokenOf(browser)
      const copy = new Browser(service)
      plant(copy, token)
      expect(await copy.session()).toHaveProperty('user')

      expect((await browser.signOut()).status).toBe(302)
      expect(await store.stored(sidOf(token))).toBeFalsy()
      expect(await browser.session()).toEqual({})
      expect(await copy.session()).toEqual({})
      // The unknown token's cookie was cleared.
      expect(copy.cookie('auth.session-token')).toBeUndefined()
    })

    it('ends the old session when the browser signs in again, so a copy of the old cookie no longer opens', async () => {
      const address = newAddress()
      const browser = await signedIn(address)
      const old = tokenOf(browser)
      const copy = new Browser(service)
      plant(copy, old)
      expect((await useLink(service, browser, await mailedLink(service, browser, address))).status).toBe(302)
      expect(tokenOf(browser)).not.toBe(old)
      expect(await browser.session()).toMatchObject({ user: { email: address } })
      expect(await store.stored(sidOf(old))).toBeFalsy()
      expect(await copy.session()).toEqual({})
    })

    it('answers {} for a token it never issued, well-formed or not, and clears the cookie', async () => {
      for (const token of [randomBytes(32).toString('base64url'), 'x', `${'a'.repeat(42)}.`]) {
        const browser = new Browser(service)
        plant(browser, token)
        expect(await browser.session()).toEqual({})
        expect(browser.cookie('auth.session-token')).toBeUndefined()
      }
    })

    it('signs a user out of every session with everywhere=true, and nobody else', async () => {
      const address = newAddress()
      const [first, second] = [await signedIn(address), await signedIn(address)]
      const other = await signedIn(newAddress())
      const sids = [first, second].map((browser) => sidOf(tokenOf(browser)))

      expect((await first.signOut({ everywhere: 'true' })).status).toBe(302)
      expect(await first.session()).toEqual({})
      expect(await second.session()).toEqual({})
      for (const sid of sids) expect(await store.stored(sid)).toBeFalsy()
      expect(await other.session()).toHaveProperty('user')
    })

    it("ends a user's sessions when the app calls revokeSessions, and a later sign-in still works", async () => {
      const address = newAddress()
      const [first, second] = [await signedIn(address), await signedIn(address)]
      await service.router.revokeSessions(`email:${address}`)
      expect(await first.session()).toEqual({})
      expect(await second.session()).toEqual({})
      expect(await (await signedIn(address)).session()).toMatchObject({ user: { email: address } })
    })

    it('keeps one whole record when two updates of one session race', async () => {
      const browser = await signedIn(newAddress())
      const csrfToken = await browser.csrfToken()
      const update = (theme: string) =>
        browser.jar.fetch(`${service.base}/session`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ csrfToken, data: { theme } }),
        })
      const answers = await Promise.all([update('dark'), update('light')])
      expect(answers.map((res) => res.status)).toEqual([200, 200])
      const session = await browser.session()
      expect(['dark', 'light']).toContain(session.theme)
      const record = (await store.stored(sidOf(tokenOf(browser)))) as Record<string, unknown>
      expect(record.data).toEqual({ theme: session.theme })
    })

    describe('with the clock moved', () => {
      // From the real time: Redis dates sign-ins by its own clock, which no spec moves.
      const START = Math.floor(Date.now() / 1000)
      clockAt(START)

      it('renews a session read after updateAge, at most once per updateAge, and ends it after maxAge', async () => {
        const browser = await signedIn(newAddress())
        const token = tokenOf(browser)
        const sid = sidOf(token)
        const issued = (await store.stored(sid)) as { iat: number; exp: number }
        expect(issued.exp - issued.iat).toBe(3600)

        setClock(START + 300)
        expect(await browser.session()).toHaveProperty('user')
        expect(await store.stored(sid)).toMatchObject({ iat: issued.iat, exp: issued.exp })

        setClock(START + 700)
        const renewed = await browser.session()
        expect(renewed.expires).toBe(new Date((START + 700 + 3600) * 1000).toISOString())
        expect(await store.stored(sid)).toMatchObject({ iat: START + 700, exp: START + 700 + 3600 })

        setClock(START + 700 + 3601)
        // The browser would have dropped the cookie by now; a copy of it is refused all the same.
        const copy = new Browser(service)
        plant(copy, token)
        expect(await copy.session()).toEqual({})
      })
    })
  })
}
