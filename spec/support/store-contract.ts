import { createHash, randomBytes } from 'node:crypto'
import type { AuthOptions } from '../../lib'
import { Browser } from './browser'
import { clockAt, setClock } from './clock'
import { mailedLink, newAddress, startEmailService, stopAll, useLink, type EmailService } from './email-harness'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

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
    /** What the app's `update` callback awaits first: nothing, unless a spec holds it (`holdUpdates`). */
    let beforeUpdate: () => Promise<void>

    beforeAll(async () => {
      store = await setup()
    })

    /** An instance of the service over the store (two of them share it, as instances of one app do). */
    function startInstance(): Promise<EmailService> {
      return startEmailService(
        { rateLimits: { addressPerMinute: 20, addressPerHour: 100, ipPerHour: 1000 } },
        {
          ...store.options,
          session: { ...store.options.session, maxAge: 3600, updateAge: 600 },
          callbacks: {
            session: ({ session, record }) => ({ ...session, theme: record.data?.theme ?? null }),
            update: async ({ newData }) => {
              await beforeUpdate()
              return { theme: String((newData as { theme?: unknown } | null)?.theme) }
            },
          },
        },
      )
    }

    beforeEach(async () => {
      beforeUpdate = async () => undefined
      service = await startInstance()
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

    /** A thief's browser at `instance`: a copy of `victim`'s session cookie, and a CSRF pair of its own. */
    async function thiefOf(victim: Browser, instance: EmailService = service) {
      const browser = new Browser(instance)
      plant(browser, tokenOf(victim))
      return { browser, csrfToken: await browser.csrfToken(), instance }
    }

    type Thief = Awaited<ReturnType<typeof thiefOf>>

    /** POST /session, as the client's `update(data)` does: the answer's session, `{}` for none. */
    async function update(thief: Thief, theme: string): Promise<Record<string, unknown>> {
      const res = await thief.browser.jar.fetch(`${thief.instance.base}/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ csrfToken: thief.csrfToken, data: { theme } }),
      })
      expect(res.status).toBe(200)
      return (await res.json()) as Record<string, unknown>
    }

    /**
     * The app's update callback does a few ms of async work; the updates that start before `release()`
     * also wait for it, so that one is surely in flight (read, not yet written) across what the spec
     * does meanwhile, in every run rather than by chance.
     */
    function holdUpdates() {
      let release!: () => void
      let entered!: () => void
      const released = new Promise<void>((resolve) => (release = resolve))
      const waiting = new Promise<void>((resolve) => (entered = resolve))
      beforeUpdate = async () => {
        entered()
        await released
        await sleep(3)
      }
      return { waiting, release }
    }

    /**
     * The thief updates in a loop while `end` (what the owner does) runs with one update in flight,
     * then a few rounds more: the session must stay ended, and nothing of it stay in the store.
     */
    async function raceUpdates(owner: Browser, thief: Thief, end: () => Promise<void>) {
      const sid = sidOf(tokenOf(owner))
      const hold = holdUpdates()
      let rounds = 0
      let stopAfter = Infinity
      const answers: Array<Record<string, unknown>> = []
      const loop = (async () => {
        while (rounds++ < stopAfter) answers.push(await update(thief, `stolen-${rounds}`))
      })()
      await hold.waiting
      await end()
      stopAfter = rounds + 3
      hold.release()
      await loop
      const left = await store.stored(sid)
      expect(answers.at(-1)).toEqual({})
      expect(await thief.browser.session()).toEqual({})
      expect(await owner.session()).toEqual({})
      expect(left).toBeFalsy()
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

    describe('racing the end of a session', () => {
      it("keeps a session signed out while a thief's copy of its cookie updates it in a loop", async () => {
        const owner = await signedIn(newAddress())
        const thief = await thiefOf(owner)
        expect(await update(thief, 'mine')).toMatchObject({ theme: 'mine' })
        await raceUpdates(owner, thief, async () => {
          expect((await owner.signOut()).status).toBe(302)
        })
      })

      it("keeps the sessions of a user signed out everywhere (everywhere=true, revokeSessions) while a thief's copy updates them", async () => {
        for (const end of ['everywhere', 'revokeSessions'] as const) {
          const address = newAddress()
          const owner = await signedIn(address)
          const other = await signedIn(address)
          await raceUpdates(owner, await thiefOf(owner), async () => {
            if (end === 'everywhere') expect((await other.signOut({ everywhere: 'true' })).status).toBe(302)
            else await service.router.revokeSessions(`email:${address}`)
          })
          expect(await other.session()).toEqual({})
        }
      })

      it("keeps the old session ended when the owner signs in again while a thief's copy updates it", async () => {
        const address = newAddress()
        const owner = await signedIn(address)
        const old = sidOf(tokenOf(owner))
        const thief = await thiefOf(owner)
        const hold = holdUpdates()
        const held = update(thief, 'stolen')
        await hold.waiting
        expect((await useLink(service, owner, await mailedLink(service, owner, address))).status).toBe(302)
        hold.release()
        await held
        const left = await store.stored(old)
        expect(await update(thief, 'again')).toEqual({})
        expect(await thief.browser.session()).toEqual({})
        expect(await owner.session()).toMatchObject({ user: { email: address } })
        expect(left).toBeFalsy()
      })

      it('holds across instances sharing the store: signed in on one, the session is ended on the other for good', async () => {
        const second = await startInstance()
        for (const end of ['signOut', 'everywhere'] as const) {
          const owner = await signedIn(newAddress())
          const thief = await thiefOf(owner, second)
          // The session made on the first instance is valid on the second.
          expect(await update(thief, 'mine')).toMatchObject({ theme: 'mine' })
          await raceUpdates(owner, thief, async () => {
            expect((await owner.signOut(end === 'everywhere' ? { everywhere: 'true' } : {})).status).toBe(302)
          })
        }
      })
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

      it("keeps a session signed out (or out everywhere) while a thief's copies of its cookie renew it", async () => {
        let now = START
        const ends: Array<Record<string, string>> = [{}, { everywhere: 'true' }]
        for (const body of ends) {
          const owner = await signedIn(newAddress())
          // Planted without an expiry, so that the owner's jar keeps it however far the clock goes.
          plant(owner, tokenOf(owner))
          const sid = sidOf(tokenOf(owner))
          const thieves = [await thiefOf(owner), await thiefOf(owner)]
          let rounds = 0
          let stopAfter = Infinity
          // Each read comes more than updateAge after the last: every one renews (reads, then writes).
          const loops = thieves.map(async (thief) => {
            while (rounds++ < stopAfter) {
              setClock((now += 601))
              await thief.browser.session()
            }
          })
          while (rounds < 4) await sleep(1)
          expect((await owner.signOut(body)).status).toBe(302)
          stopAfter = rounds + 6
          await Promise.all(loops)
          const left = await store.stored(sid)
          for (const thief of thieves) expect(await thief.browser.session()).toEqual({})
          expect(left).toBeFalsy()
        }
      })
    })
  })
}
