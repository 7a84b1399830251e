import { randomBytes } from 'node:crypto'
import type { Redis } from 'ioredis'
import type { AuthOptions } from '../../lib'
import { Browser } from '../support/browser'
import { restoreClock, useClock } from '../support/clock'
import { sharedRedis, type SharedRedis } from '../support/redis'
import { sidOf } from '../support/store-contract'
import {
  mailedLink,
  newAddress,
  outcome,
  refused,
  requestLink,
  setsSession,
  startEmailService,
  stopAll,
  useLink,
  verifyRequestUrl,
  type EmailService,
} from '../support/email-harness'

// Two instances of one app in this process, on one Redis, reached by one browser (cookies do not
// tell ports apart, as with two instances behind one load balancer). The spec that runs two real
// processes is multi-instance.spec.ts; this one looks into Redis too.
let redis: SharedRedis
let client: Redis
let prefix: string

beforeAll(async () => {
  redis = await sharedRedis()
  client = redis.client()
  await client.ping()
})

beforeEach(() => {
  prefix = redis.prefix('shared-state')
})

afterEach(async () => {
  await stopAll()
  await redis.deleteKeys(prefix)
})

afterAll(() => redis.close())

async function keys(pattern = '*'): Promise<string[]> {
  const found: string[] = []
  let cursor = '0'
  do {
    const [next, batch] = await client.scan(cursor, 'MATCH', `${prefix}${pattern}`, 'COUNT', 500)
    cursor = next
    found.push(...batch)
  } while (cursor !== '0')
  return found.sort()
}

const LIMITS = { rateLimits: { addressPerMinute: 20, addressPerHour: 100, ipPerHour: 1000 } }

/** Two instances with the same options on this spec's Redis prefix. */
async function twoInstances(options: AuthOptions, email: object = LIMITS): Promise<[EmailService, EmailService]> {
  const shared = { redis: client, redisKeyPrefix: prefix, ...options }
  return [await startEmailService(email, shared), await startEmailService(email, shared)]
}

/** `link`, sent by one instance, opened at another. */
function at(service: EmailService, link: URL): URL {
  return new URL(`${link.pathname}${link.search}`, service.origin)
}

async function signedIn(service: EmailService, address: string): Promise<Browser> {
  const browser = new Browser(service)
  expect((await useLink(service, browser, await mailedLink(service, browser, address))).status).toBe(302)
  return browser
}

describe('database sessions on Redis', () => {
  it('are seen by every instance, and signed out on one they are gone on the other', async () => {
    const [one, two] = await twoInstances({ session: { strategy: 'database' } })
    const address = newAddress()
    const browser = await signedIn(one, address)
    const onTwo = new Browser(two, browser.jar)
    expect(await onTwo.session()).toMatchObject({ user: { email: address } })
    await onTwo.signOut()
    expect(await browser.session()).toEqual({})
  })

  it('keep no token in Redis: keys and values hold only its hash; the key expires with the session', async () => {
    const [one] = await twoInstances({ session: { strategy: 'database', maxAge: 7200 } })
    const browser = await signedIn(one, newAddress())
    const token = browser.cookie('auth.session-token')!.value
    const all = await keys()
    for (const key of all) {
      expect(key).not.toContain(token)
      const type = await client.type(key)
      const value = type === 'string' ? await client.get(key) : JSON.stringify(await client.zrange(key, 0, -1))
      expect(value).not.toContain(token)
    }
    const sessionKey = `${prefix}sess:${sidOf(token)}`
    expect(all).toContain(sessionKey)
    const ttl = await client.ttl(sessionKey)
    expect(ttl).toBeGreaterThan(7100)
    expect(ttl).toBeLessThanOrEqual(7200)
    // The user's index lists the session.
    const [index] = await keys('idx:*')
    expect(await client.zrange(index!, 0, -1)).toEqual([sidOf(token)])
  })
})

describe('database sessions on Redis, with a value under the prefix that is not ours', () => {
  it('answer no session for a value that does not parse, not an outage', async () => {
    const [one] = await twoInstances({ session: { strategy: 'database' } })
    const token = randomBytes(32).toString('base64url')
    await client.set(`${prefix}sess:${sidOf(token)}`, 'garbage, not JSON')
    const browser = new Browser(one)
    browser.jar.set(one.origin, `auth.session-token=${token}; Path=/`)
    expect(await browser.session()).toEqual({})
    expect(browser.cookie('auth.session-token')).toBeUndefined()
    expect(one.logs.filter((entry) => entry.event.startsWith('store.'))).toEqual([])
  })
})

describe('e-mail sign-in on Redis', () => {
  it('spends on one instance a link asked on the other, once; the link lives in Redis until then', async () => {
    const [one, two] = await twoInstances({})
    const browser = new Browser(one)
    const link = await mailedLink(one, browser, newAddress())
    expect(await keys('vt:*')).toHaveLength(1)
    const res = await useLink(two, browser, at(two, link))
    expect(setsSession(res)).toBe(true)
    expect(await keys('vt:*')).toEqual([])
    // Spent: the same link on the first instance is refused.
    expect(outcome(await useLink(one, new Browser(one), link))).toEqual(refused(one))
  })

  it('counts the rate limits across instances', async () => {
    const [one, two] = await twoInstances({}, { rateLimits: { addressPerMinute: 1 } })
    const address = newAddress()
    await mailedLink(one, new Browser(one), address)
    const res = await requestLink(two, new Browser(two), address)
    // The same answer as a sent mail, and no mail: the second instance knew of the first link.
    expect(res.headers.get('location')).toBe(verifyRequestUrl(two))
    expect(two.logs.filter((entry) => entry.event === 'email.rate_limited')).toHaveLength(1)
    expect(await keys('rl:*')).not.toEqual([])
  })

  it('counts the request-rate limit across instances: 429 on one after the other used it up', async () => {
    const [one, two] = await twoInstances({ requestRateLimit: { limit: 2, windowSeconds: 60 } })
    expect((await requestLink(one, new Browser(one), newAddress())).status).toBe(302)
    expect((await requestLink(two, new Browser(two), newAddress())).status).toBe(302)
    const refusedHere = await requestLink(one, new Browser(one), newAddress())
    expect(refusedHere.status).toBe(429)
    expect(refusedHere.headers.get('retry-after')).toMatch(/^\d+$/)
    expect(await keys('rl:requests*')).toHaveLength(1)
  })
})

describe('cookie sessions with Redis: sign-out everywhere', () => {
  it("refuses a user's older cookies on every instance, at once with revocationDelay 0", async () => {
    const [one, two] = await twoInstances({ session: { revocationDelay: 0 } })
    const address = newAddress()
    const [first, second] = [await signedIn(one, address), await signedIn(one, address)]
    const other = await signedIn(one, newAddress())
    const secondOnTwo = new Browser(two, second.jar)
    expect(await secondOnTwo.session()).toHaveProperty('user')

    await first.signOut({ everywhere: 'true' })
    expect(await secondOnTwo.session()).toEqual({})
    expect(await second.session()).toEqual({})
    expect(await other.session()).toHaveProperty('user')
    expect(await keys('rev:*')).toHaveLength(1)
    // A sign-in after the revocation is a session like any other, on both.
    const later = await signedIn(two, address)
    const laterOnOne = new Browser(one, later.jar)
    expect(await laterOnOne.session()).toHaveProperty('user')
  })

  it("dates sign-ins and revocations by Redis's clock: a session made while the app's clock ran fast is revoked too", async () => {
    const [one] = await twoInstances({ session: { revocationDelay: 0 } })
    const address = newAddress()
    useClock(Math.floor(Date.now() / 1000) + 30)
    let fast: Browser
    try {
      fast = await signedIn(one, address)
    } finally {
      restoreClock()
    }
    const now = await signedIn(one, address)
    await now.signOut({ everywhere: 'true' })
    expect(await new Browser(one, fast.jar).session()).toEqual({})
  })

  it('refuses a revoked cookie on another instance within revocationDelay of its last look, never later', async () => {
    const delayMs = 1000
    const [one, two] = await twoInstances({ session: { revocationDelay: delayMs / 1000 } })
    const address = newAddress()
    const [first, second] = [await signedIn(one, address), await signedIn(one, address)]
    const secondOnTwo = new Browser(two, second.jar)
    // The other instance serves the session, and keeps the user's revocation time (none) from now.
    expect(await secondOnTwo.session()).toHaveProperty('user')
    const lookedAt = performance.now()
    await first.signOut({ everywhere: 'true' })

    const servedAt: number[] = []
    let refusedAt: number | undefined
    while (refusedAt === undefined && performance.now() - lookedAt < 3 * delayMs) {
      const askedAt = performance.now()
      if ('user' in (await secondOnTwo.session())) servedAt.push(askedAt - lookedAt)
      else refusedAt = askedAt - lookedAt
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    expect(refusedAt).toBeDefined()
    // No answer asked for after the delay served the revoked session (5 ms: the cache's clock tick).
    expect(servedAt.filter((at) => at > delayMs + 5)).toEqual([])
  })

  it("lets another instance see a revocation as soon as Redis tells it (the user's time is tracked)", async () => {
    const [one, two] = await twoInstances({})
    const address = newAddress()
    const [first, second] = [await signedIn(one, address), await signedIn(one, address)]
    const secondOnTwo = new Browser(two, second.jar)
    await new Promise((resolve) => setTimeout(resolve, 300)) // the tracking connections are up
    expect(await secondOnTwo.session()).toHaveProperty('user')
    expect(await secondOnTwo.session()).toHaveProperty('user')
    await first.signOut({ everywhere: 'true' })
    // Not after the revocation delay (10 s): the invalidation of the user's time came with the change.
    expect(await secondOnTwo.session()).toEqual({})
  })
})
