import { postgresAccounts, type PostgresAccountStore } from '../../lib'
import { Browser } from '../support/browser'
import {
  mailedLink,
  newAddress,
  outcome,
  startEmailService,
  stopAll,
  useLink,
  type EmailService,
} from '../support/email-harness'
import { ownPostgres, type OwnPostgres } from '../support/postgres'

// Accounts in PostgreSQL while the server restarts under a stream of sign-ups: requests that need
// it answer 503 (never a 500, never a crash), the service heals by itself once the server is back,
// and every sign-up it acknowledged is there afterwards. On a server of the spec's own.
jest.setTimeout(60_000)

let server: OwnPostgres
let store: PostgresAccountStore
let service: EmailService

beforeAll(async () => {
  server = await ownPostgres()
  store = postgresAccounts(server.pool({ max: 4, connectionTimeoutMillis: 500 }))
  await store.migrate()
  service = await startEmailService(
    { rateLimits: { addressPerMinute: 100, addressPerHour: 1000, ipPerHour: 100_000 } },
    { accounts: store, storeTimeout: 1000, requestRateLimit: { limit: 100_000 } },
  )
})
afterAll(async () => {
  await stopAll()
  await server?.close()
})

/** A new address signs up by e-mail link: what the browser saw, and the user id when it was signed in. */
async function signUp(): Promise<{ status: number; location: string | null; userId: string | null }> {
  const browser = new Browser(service)
  const link = await mailedLink(service, browser, newAddress())
  const answer = outcome(await useLink(service, browser, link))
  const record = answer.session ? await sessionRecord(browser) : null
  return { status: answer.status, location: answer.location, userId: record }
}

async function sessionRecord(browser: Browser): Promise<string | null> {
  const cookie = browser.cookie('auth.session-token')
  if (!cookie) return null
  const req = { headers: { cookie: `auth.session-token=${cookie.value}` } }
  const record = await service.router.getSessionRecord(req as never)
  return record?.userId ?? null
}

it('answers 503 while PostgreSQL restarts, heals by itself, and loses no acknowledged sign-up', async () => {
  const before = await Promise.all(Array.from({ length: 5 }, signUp))
  expect(before.map(({ location }) => location)).toEqual(before.map(() => `${service.origin}/welcome`))

  const stopped = server.stop('fast')
  const during: Array<Awaited<ReturnType<typeof signUp>>> = []
  const load = (async () => {
    for (let i = 0; i < 6; i++) during.push(await signUp())
  })()
  await stopped
  await new Promise((resolve) => setTimeout(resolve, 1500))
  await server.start()
  await load

  const after = await Promise.all(Array.from({ length: 5 }, signUp))
  expect(after.map(({ location }) => location)).toEqual(after.map(() => `${service.origin}/welcome`))
  // While it was down: a sign-up signed in (before the stop, or after the start) or got the 503 page.
  for (const answer of during)
    expect(answer.location === `${service.origin}/welcome` || answer.status === 503).toBe(true)
  expect(during.some(({ status }) => status === 503)).toBe(true)
  expect(service.logs).toContainEqual(expect.objectContaining({ event: 'store.unavailable' }))
  expect(service.logs).toContainEqual(expect.objectContaining({ event: 'store.recovered' }))
  // Nothing acknowledged is lost: every user that was signed in is still there, with their way in.
  for (const { userId } of [...before, ...during, ...after].filter(({ userId }) => userId !== null)) {
    expect(await store.getUser(userId!)).toMatchObject({ id: userId })
    expect(await store.listAccounts(userId!)).toHaveLength(1)
  }
})
