import path from 'node:path'
import { Browser } from '../support/browser'
import { startApp, type App } from '../support/app-process'
import { monitorCommands, sharedRedis, type SharedRedis } from '../support/redis'
import { signInLink, startSmtp, type SmtpServer } from '../support/smtp'
import { newAddress } from '../support/email-harness'
import { forms } from '../support/forms'

// Two real app processes (fixtures/revoking-app.ts) on one Redis: a user signed out everywhere
// through one instance (the host app's `revokeSessions`) is refused by the other as soon as Redis's
// invalidation of the user's revocation time reaches it, not after `revocationDelay` (10 s), for
// cookie and database sessions alike; and the other instance, while nothing changes, answers its
// sessions without reading Redis. The times seen are printed.
jest.setTimeout(120_000)

/** Revocations measured per kind of session. */
const ROUNDS = 30
/** Far below the revocation delay (10 s), far above what the invalidation takes (milliseconds). */
const SEEN_WITHIN_MS = 1000

let redis: SharedRedis
let smtp: SmtpServer

beforeAll(async () => {
  redis = await sharedRedis()
  smtp = await startSmtp()
})

afterAll(async () => {
  await smtp?.close()
  await redis?.close()
})

type Site = { origin: string; base: string }

describe.each(['cookie', 'database'] as const)('%s sessions, two instances on one Redis', (strategy) => {
  let prefix: string
  let apps: App[]
  let sites: Site[]

  beforeAll(async () => {
    prefix = redis.prefix(`revocation-${strategy}`)
    const env = { REDIS_URL: redis.url, REDIS_PREFIX: prefix, SMTP_URL: smtp.url, SESSION_STRATEGY: strategy }
    const file = path.join(__dirname, 'fixtures', 'revoking-app.ts')
    apps = await Promise.all([startApp(file, env), startApp(file, env)])
    sites = apps.map((app) => ({ origin: app.url, base: `${app.url}/api/auth` }))
    // Each instance's tracking connection is up (it is made once its client is ready).
    await new Promise((resolve) => setTimeout(resolve, 500))
  })

  afterAll(async () => {
    await Promise.all((apps ?? []).map((app) => app.stop()))
    await redis?.deleteKeys(prefix)
  })

  /** Signs a new user in by e-mail at the first instance: the browser, and the user's id. */
  async function signIn(): Promise<{ browser: Browser; userId: string }> {
    const site = sites[0]!
    const address = newAddress()
    const browser = new Browser(site)
    const asked = await browser.jar.fetch(`${site.base}/signin/email`, {
      method: 'POST',
      body: new URLSearchParams({ email: address, csrfToken: await browser.csrfToken(), callbackUrl: '/welcome' }),
    })
    expect(asked.status).toBe(302)
    const link = signInLink(await smtp.nextMessage(), site.base)
    const page = await (await browser.jar.fetch(link, {}, { crossSite: true })).text()
    const form = forms(page).find((candidate) => candidate.method === 'post')!
    const done = await browser.jar.fetch(`${site.base}/callback/email`, {
      method: 'POST',
      body: new URLSearchParams(form.fields),
    })
    expect(done.status).toBe(302)
    return { browser, userId: `email:${address}` }
  }

  const revoke = (userId: string) =>
    fetch(`${sites[0]!.origin}/admin/revoke`, { method: 'POST', body: new URLSearchParams({ userId }) })

  it('the other instance refuses a user signed out everywhere as soon as Redis tells it', async () => {
    const seenAfter: number[] = []
    for (let round = 0; round < ROUNDS; round++) {
      const { browser, userId } = await signIn()
      const other = new Browser(sites[1]!, browser.jar)
      // Served, and so remembered, by the other instance.
      expect(await other.session()).toHaveProperty('user')
      expect(await other.session()).toHaveProperty('user')
      expect((await revoke(userId)).status).toBe(204)
      const revokedAt = performance.now()
      let refusedAfter = Infinity
      while (performance.now() - revokedAt < 3 * SEEN_WITHIN_MS) {
        const answer = await other.session()
        if (!('user' in answer)) {
          refusedAfter = performance.now() - revokedAt
          break
        }
      }
      seenAfter.push(refusedAfter)
    }
    const sorted = [...seenAfter].sort((a, b) => a - b)
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!.toFixed(1)
    process.stdout.write(
      `${strategy} sessions: sign-out everywhere seen by the other instance after p50 ${at(0.5)} ms, ` +
        `p99 ${at(0.99)} ms, max ${at(1)} ms (${ROUNDS} revocations, from the revoking answer to the first refusal)\n`,
    )
    expect(sorted.filter((ms) => ms > SEEN_WITHIN_MS)).toEqual([])
  })

  it('answers a signed-in user again and again without reading Redis', async () => {
    const { browser } = await signIn()
    const other = new Browser(sites[1]!, browser.jar)
    expect(await other.session()).toHaveProperty('user')
    expect(await other.session()).toHaveProperty('user')
    const reads: string[] = []
    const monitor = await monitorCommands(redis.client(), (args) => {
      if (args.some((arg) => arg.startsWith(prefix))) reads.push(args.join(' '))
    })
    try {
      for (let i = 0; i < 50; i++) expect(await other.session()).toHaveProperty('user')
      // MONITOR shows a command once Redis ran it: whatever the answers caused is there by now.
      await redis.client().ping()
      expect(reads).toEqual([])
    } finally {
      monitor.disconnect()
    }
  })
})
