import { Browser } from '../support/browser'
import { restoreClock, setClock, useClock } from '../support/clock'
import {
  GOOD,
  bcryptHash,
  importedAccount,
  newAddress,
  passwordSignIn,
  signUp,
  startPasswordService,
  stopAll,
  type PasswordService,
} from './password-harness'

/**
 * Whether an account exists must not show in any answer of sign-in, sign-up or forgotten password:
 * not in the status, not in the body, not in the time. Each kind of request is made 50 times,
 * interleaved (so that the machine's load falls on all alike), each from its own client address
 * (the app trusts X-Forwarded-For here, so the per-client throttle stays out of it), and the
 * median times compared: within noise means within a quarter of each other, or 15 ms.
 */

afterEach(stopAll)
afterEach(restoreClock)
const TRIES = 50

interface Answer {
  status: number
  location: string | null
  body: string
  ms: number
}

let ip = 0
function nextClient(): Record<string, string> {
  ip++
  return { 'x-forwarded-for': `10.${(ip >> 16) & 255}.${(ip >> 8) & 255}.${ip & 255}` }
}

async function timed(request: () => Promise<Response>): Promise<Answer> {
  const started = performance.now()
  const res = await request()
  const body = await res.text()
  return { status: res.status, location: res.headers.get('location'), body, ms: performance.now() - started }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

/** Runs each kind TRIES times, interleaved; every answer of every kind must be the same, and the medians close. */
async function compare(kinds: Record<string, () => Promise<Answer>>): Promise<Record<string, number>> {
  const answers: Record<string, Answer[]> = Object.fromEntries(Object.keys(kinds).map((k) => [k, []]))
  for (let i = 0; i < TRIES; i++) for (const [kind, run] of Object.entries(kinds)) answers[kind]!.push(await run())
  const shapes = new Set(
    Object.values(answers).flatMap((list) =>
      list.map(({ status, location, body }) => JSON.stringify({ status, location, body })),
    ),
  )
  expect([...shapes]).toHaveLength(1)
  const medians = Object.fromEntries(
    Object.entries(answers).map(([kind, list]) => [kind, median(list.map(({ ms }) => ms))]),
  )
  const values = Object.values(medians)
  const low = Math.min(...values)
  const high = Math.max(...values)
  expect({ medians, close: high - low <= Math.max(15, 0.25 * low) }).toEqual({ medians, close: true })
  return medians
}

async function service(): Promise<PasswordService> {
  return startPasswordService({
    setup: (app) => app.set('trust proxy', true),
    email: { rateLimits: { addressPerMinute: 1000, addressPerHour: 1000, ipPerHour: 100_000 } },
  })
}

describe('no answer tells whether an account exists', () => {
  it('sign-in: an unknown address, a wrong password and a slowed-down account answer alike, in the same time', async () => {
    const s = await service()
    const known = newAddress()
    const slowed = newAddress()
    await signUp(s, new Browser(s), known, GOOD)
    await signUp(s, new Browser(s), slowed, GOOD)
    // Ten free failures, then one failure at the end of each delay (1 s, 2 s, ... 128 s on the
    // service's clock, which the spec moves): the account waits 256 s, through every try below.
    let now = Math.floor(Date.now() / 1000)
    useClock(now)
    for (let i = 0; i < 10; i++) await passwordSignIn(s, new Browser(s), slowed, `guess ${i}`)
    for (let k = 0; k < 8; k++) {
      now += 2 ** k
      setClock(now)
      await passwordSignIn(s, new Browser(s), slowed, `late guess ${k}`)
    }
    const attempt = (address: string, secret: string) => () =>
      timed(async () => {
        const browser = new Browser(s)
        const body = new URLSearchParams({
          email: address,
          password: secret,
          csrfToken: await browser.csrfToken(),
          json: 'true',
        })
        return browser.jar.fetch(`${s.base}/callback/credentials`, { method: 'POST', body, headers: nextClient() })
      })
    await compare({
      unknown: attempt(newAddress(), GOOD),
      wrong: attempt(known, 'not the right password'),
      // The right password, during the slow-down.
      slowed: attempt(slowed, GOOD),
    })
  })

  it('sign-in: an account whose hash was imported (bcrypt, cost 10) answers in the time an unknown address takes', async () => {
    const s = await service()
    // A bcrypt hash at cost 10 takes several times argon2id's time to verify: without a floor under
    // refusals, a wrong password for such an account would tell it from an unknown address.
    const imported = await bcryptHash(GOOD, 10)
    const addresses = await Promise.all(
      Array.from({ length: TRIES }, async () => {
        const address = newAddress()
        await importedAccount(s.store, address, imported)
        return address
      }),
    )
    const attempt = (address: () => string) => () =>
      timed(async () => {
        const browser = new Browser(s)
        const body = new URLSearchParams({
          email: address(),
          password: 'not the right password',
          csrfToken: await browser.csrfToken(),
          json: 'true',
        })
        return browser.jar.fetch(`${s.base}/callback/credentials`, { method: 'POST', body, headers: nextClient() })
      })
    let next = 0
    const medians = await compare({ unknown: attempt(newAddress), imported: attempt(() => addresses[next++ % TRIES]!) })
    // Both as slow as bcrypt: the unknown address waited, the imported hash was really verified.
    expect(medians.unknown).toBeGreaterThan(20)
  }, 120_000)

  it('sign-up: an address with an account and a new one answer alike, in the same time', async () => {
    const s = await service()
    const taken = newAddress()
    await signUp(s, new Browser(s), taken, GOOD)
    const attempt = (address: () => string) => () =>
      timed(async () => {
        const browser = new Browser(s)
        return browser.jar.fetch(`${s.base}/password/signup`, {
          method: 'POST',
          headers: nextClient(),
          body: new URLSearchParams({ email: address(), password: GOOD, csrfToken: await browser.csrfToken() }),
        })
      })
    await compare({ taken: attempt(() => taken), fresh: attempt(() => newAddress()) })
  })

  it('forgotten password: an account and no account answer alike, in the same time', async () => {
    const s = await service()
    const known = newAddress()
    await signUp(s, new Browser(s), known, GOOD)
    const attempt = (address: () => string) => () =>
      timed(async () => {
        const browser = new Browser(s)
        return browser.jar.fetch(`${s.base}/password/forgot`, {
          method: 'POST',
          headers: nextClient(),
          body: new URLSearchParams({ email: address(), csrfToken: await browser.csrfToken() }),
        })
      })
    await compare({ known: attempt(() => known), unknown: attempt(() => newAddress()) })
  })
})
