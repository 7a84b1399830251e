import { recoveryCodes, totp } from '../../lib'
import { Browser } from '../support/browser'
import { restoreClock, setClock, useClock } from '../support/clock'
import { base32Decode } from '../support/totp'
import { GOOD, passwordSignIn, signUp } from '../password/password-harness'
import { codeOf, enrolledUser, newAddress, post, startMfaService, stopAll, type MfaService } from '../mfa/mfa-harness'

/**
 * An outside attacker of `mfa` who knows the victim's password, not their authenticator app nor
 * their recovery codes. Each test asserts the safe behaviour: a failing test is a finding. The
 * service's clock is the spec's (Date faked, timers real), so that codes are known a step ahead.
 */

afterEach(stopAll)
afterEach(restoreClock)

let now = 0
function pass(seconds: number): void {
  now += seconds
  setClock(now)
}
beforeEach(() => {
  now = Math.floor(Date.now() / 1000)
  useClock(now)
})

const ALWAYS = { factors: [totp({ issuer: 'Example' }), recoveryCodes()], require: 'always' as const }

/** The password alone, in `browser`: its pending sign-in (or, with no factor due, its session). */
async function firstFactor(service: MfaService, browser: Browser, address: string): Promise<string> {
  const res = await passwordSignIn(service, browser, address, GOOD)
  expect(res.status).toBe(200)
  return ((await res.json()) as { url: string }).url
}

function verify(service: MfaService, browser: Browser, code: string, factor = 'totp', json = true) {
  return post(service, browser, '/mfa/verify', { factor, code, callbackUrl: '/welcome' }, json)
}

/** Another browser holding a copy of every cookie of `browser` (a stolen or duplicated jar). */
function copyOf(service: MfaService, browser: Browser): Browser {
  const copy = new Browser(service)
  const cookies = browser.jar.header(`${service.base}/mfa/verify`, { method: 'POST' })
  for (const pair of cookies!.split('; ')) copy.jar.set(`${service.base}/`, `${pair}; Path=/`)
  return copy
}

async function signedIn(service: MfaService, browser: Browser): Promise<boolean> {
  return (await service.record(browser)) !== null
}

async function sessions(service: MfaService, browsers: Browser[]): Promise<number> {
  let count = 0
  for (const browser of browsers) if (await signedIn(service, browser)) count++
  return count
}

/** The enrolled victim (from a browser of their own) and the attacker's browser after the password. */
async function victimAndPending(service: MfaService) {
  const address = newAddress()
  const enrolling = new Browser(service)
  const enrolled = await enrolledUser(service, enrolling, address)
  const victimId = (await service.record(enrolling))!.userId
  pass(30)
  const attacker = new Browser(service)
  expect(await firstFactor(service, attacker, address)).toContain('/mfa?')
  return { address, attacker, victimId, ...enrolled }
}

describe('mfa attacks: a session without the second factor', () => {
  it("a tampered pending cookie is nobody's: no session, no 500", async () => {
    const service = await startMfaService()
    const { attacker } = await victimAndPending(service)
    const cookie = attacker.cookie('auth.mfa-pending')!
    const middle = Math.floor(cookie.value.length / 2)
    const flipped = cookie.value[middle] === 'A' ? 'B' : 'A'
    attacker.jar.set(
      `${service.base}/`,
      `auth.mfa-pending=${cookie.value.slice(0, middle)}${flipped}${cookie.value.slice(middle + 1)}; Path=/`,
    )
    const res = await verify(service, attacker, '123456')
    expect(res.status).toBe(401)
    expect(await signedIn(service, attacker)).toBe(false)
  })

  it('racing a dozen wrong codes from copies of one pending cookie judges five at most: the right one then fails', async () => {
    const service = await startMfaService()
    const { attacker, key } = await victimAndPending(service)
    const copies = Array.from({ length: 6 }, () => copyOf(service, attacker))
    const wrong = ['000000', '111111', '222222', '333333', '444444', '555555']
    await Promise.all(copies.map((copy, i) => verify(service, copy, wrong[i]!)))
    const res = await verify(service, attacker, codeOf(key, now * 1000))
    expect(res.status).toBe(401)
    expect(await sessions(service, [attacker, ...copies])).toBe(0)
  })

  it("racing the next two steps' codes from copies of one pending cookie makes one session at most", async () => {
    const service = await startMfaService()
    const { attacker, key } = await victimAndPending(service)
    const copy = copyOf(service, attacker)
    await Promise.all([
      verify(service, attacker, codeOf(key, now * 1000)),
      verify(service, copy, codeOf(key, (now + 30) * 1000)),
    ])
    expect(await sessions(service, [attacker, copy])).toBeLessThanOrEqual(1)
  })

  it('one code raced by two pending sign-ins (a relayed code) makes one session at most', async () => {
    const service = await startMfaService()
    const { address, attacker, key } = await victimAndPending(service)
    const victim = new Browser(service)
    await firstFactor(service, victim, address)
    const code = codeOf(key, now * 1000)
    await Promise.all([verify(service, attacker, code), verify(service, victim, code)])
    expect(await sessions(service, [attacker, victim])).toBe(1)
  })

  it('one recovery code raced by two pending sign-ins makes one session at most', async () => {
    const service = await startMfaService()
    const { address, attacker, recoveryCodes: codes } = await victimAndPending(service)
    const other = new Browser(service)
    await firstFactor(service, other, address)
    await Promise.all([
      verify(service, attacker, codes[0]!, 'recovery'),
      verify(service, other, codes[0]!.toUpperCase().replaceAll('-', ''), 'recovery'),
    ])
    expect(await sessions(service, [attacker, other])).toBe(1)
  })

  it('a pending cookie kept after its success makes no second session, with the next code', async () => {
    const service = await startMfaService()
    const { attacker, key } = await victimAndPending(service)
    const kept = copyOf(service, attacker)
    expect((await verify(service, attacker, codeOf(key, now * 1000))).status).toBe(200)
    pass(30)
    const replay = await verify(service, kept, codeOf(key, now * 1000))
    expect(replay.status).toBe(401)
    expect(await signedIn(service, kept)).toBe(false)
  })

  it('a recovery code spent once does not work again in another spelling (case, dashes, O/I/L, full width, en dashes)', async () => {
    const service = await startMfaService()
    const { address, attacker, recoveryCodes: codes } = await victimAndPending(service)
    const code = codes[0]!
    expect((await verify(service, attacker, code, 'recovery')).status).toBe(200)
    const again = new Browser(service)
    await firstFactor(service, again, address)
    const spellings = [
      code.toUpperCase().replaceAll('-', ''),
      code.replaceAll('0', 'O').replaceAll('1', 'l').replaceAll('-', ' '),
      [...code].map((c) => (c === '-' ? '\u2013' : String.fromCharCode(c.charCodeAt(0) + 0xfee0))).join(''),
      ` ${code.toUpperCase().replaceAll('1', 'I')} `,
    ]
    for (const spelling of spellings) expect((await verify(service, again, spelling, 'recovery')).status).toBe(401)
    expect(await signedIn(service, again)).toBe(false)
  })

  it('a code for the wrong factor name, or a recovery code given as totp, makes nothing', async () => {
    const service = await startMfaService()
    const { attacker, recoveryCodes: codes } = await victimAndPending(service)
    expect((await verify(service, attacker, codes[1]!, 'totp')).status).toBe(401)
    expect((await verify(service, attacker, codes[1]!, 'passkey')).status).toBe(401)
    expect((await verify(service, attacker, '', 'recovery')).status).toBe(401)
    expect(await signedIn(service, attacker)).toBe(false)
  })
})

describe('mfa attacks: enrolment from a pending sign-in of a user with factors', () => {
  for (const [name, mfa] of [
    ['enrolled', undefined],
    ['always', ALWAYS],
  ] as const) {
    it(`(${name}) setup, confirm, new codes and remove are refused, show no secret, make no session`, async () => {
      const service = await startMfaService(mfa)
      const address = newAddress()
      const victim = new Browser(service)
      // Under 'always' the sign-up is held: the victim enrols on the way in.
      const enrolled =
        name === 'enrolled'
          ? await enrolledUser(service, victim, address)
          : await enrolOnTheWayIn(service, victim, address)
      const userId = (await service.record(victim))!.userId
      const before = await service.router.listFactors(userId)
      pass(30)
      const attacker = new Browser(service)
      await firstFactor(service, attacker, address)
      const setup = await post(service, attacker, '/mfa/totp/setup', {}, true)
      expect(setup.status).not.toBe(200)
      const page = await attacker.jar.fetch(`${service.base}/mfa/setup`)
      expect(page.status).not.toBe(200)
      const confirm = await post(
        service,
        attacker,
        '/mfa/totp/confirm',
        { code: codeOf(enrolled.key, now * 1000) },
        true,
      )
      expect(confirm.status).not.toBe(200)
      expect((await post(service, attacker, '/mfa/recovery-codes', {}, true)).status).not.toBe(200)
      expect((await post(service, attacker, '/mfa/remove', { factorId: before[0]!.id }, true)).status).not.toBe(200)
      expect(await service.router.listFactors(userId)).toEqual(before)
      expect(await signedIn(service, attacker)).toBe(false)
    })
  }
})

/** Under `require: 'always'`: sign up (held), set up the app from the pending sign-in, confirm: the session. */
async function enrolOnTheWayIn(service: MfaService, browser: Browser, address: string) {
  await signUp(service, browser, address, GOOD)
  expect(browser.cookie('auth.mfa-pending')).toBeDefined()
  expect(await signedIn(service, browser)).toBe(false)
  const setup = await post(service, browser, '/mfa/totp/setup', {}, true)
  expect(setup.status).toBe(200)
  const key = base32Decode(((await setup.json()) as { secret: string }).secret)
  const kept = copyOf(service, browser)
  const confirmed = await post(service, browser, '/mfa/totp/confirm', { code: codeOf(key, now * 1000) }, true)
  expect(confirmed.status).toBe(200)
  const { recoveryCodes: codes } = (await confirmed.json()) as { recoveryCodes: string[] }
  return { key, recoveryCodes: codes, kept }
}

describe("mfa attacks: require 'always', enrolment on the way in", () => {
  it('a pending sign-in without factors may not make recovery codes or remove factors', async () => {
    const service = await startMfaService(ALWAYS)
    const browser = new Browser(service)
    await signUp(service, browser, newAddress(), GOOD)
    expect((await post(service, browser, '/mfa/recovery-codes', {}, true)).status).not.toBe(200)
    expect((await post(service, browser, '/mfa/remove', { factorId: 'x' }, true)).status).not.toBe(200)
    expect(await signedIn(service, browser)).toBe(false)
  })

  it('the pending cookie of an enrolment on the way in, kept after its session, makes no second session at /mfa/verify', async () => {
    const service = await startMfaService(ALWAYS)
    const browser = new Browser(service)
    const { key, kept } = await enrolOnTheWayIn(service, browser, newAddress())
    expect(await signedIn(service, browser)).toBe(true)
    const replay = await verify(service, kept, codeOf(key, (now + 30) * 1000))
    expect(replay.status).toBe(401)
    expect(await signedIn(service, kept)).toBe(false)
  })
})

describe("mfa attacks: require 'always', racing the first code", () => {
  it('two copies of one pending sign-in confirming the new app in parallel make one session at most', async () => {
    const service = await startMfaService(ALWAYS)
    const browser = new Browser(service)
    await signUp(service, browser, newAddress(), GOOD)
    const setup = await post(service, browser, '/mfa/totp/setup', {}, true)
    const key = base32Decode(((await setup.json()) as { secret: string }).secret)
    const copy = copyOf(service, browser)
    await Promise.all([
      post(service, browser, '/mfa/totp/confirm', { code: codeOf(key, now * 1000) }, true),
      post(service, copy, '/mfa/totp/confirm', { code: codeOf(key, (now + 30) * 1000) }, true),
    ])
    expect(await sessions(service, [browser, copy])).toBeLessThanOrEqual(1)
  })
})

describe('mfa attacks: learning the secret', () => {
  it('a password-only session of the same user does not see the secret the user is enrolling (GET /mfa/setup)', async () => {
    const service = await startMfaService()
    const address = newAddress()
    const victim = new Browser(service)
    await signUp(service, victim, address, GOOD)
    // The attacker's session: the password alone, before any factor (or a stolen old cookie).
    const attacker = new Browser(service)
    await firstFactor(service, attacker, address)
    expect(await signedIn(service, attacker)).toBe(true)
    const setup = await post(service, victim, '/mfa/totp/setup', {}, true)
    const { secret } = (await setup.json()) as { secret: string }
    const page = await attacker.jar.fetch(`${service.base}/mfa/setup`)
    const leaked = (await page.text()).replace(/\s+/g, '').includes(secret)
    // The victim confirms the app, on their phone; the attacker, who knows the password, signs in with a code of their own making.
    const victimKey = base32Decode(secret)
    expect(
      (await post(service, victim, '/mfa/totp/confirm', { code: codeOf(victimKey, now * 1000) }, true)).status,
    ).toBe(200)
    pass(30)
    const later = new Browser(service)
    expect(await firstFactor(service, later, address)).toContain('/mfa?')
    await verify(service, later, leaked ? codeOf(victimKey, now * 1000) : '000000')
    expect({ leaked, attackerAal: (await service.record(later))?.aal ?? 0 }).toEqual({ leaked: false, attackerAal: 0 })
  })

  it('the secret and recovery codes never reach the logs or the events', async () => {
    const service = await startMfaService()
    const { attacker, uri, recoveryCodes: codes } = await victimAndPending(service)
    expect((await verify(service, attacker, codes[2]!, 'recovery')).status).toBe(200)
    const seen = JSON.stringify([service.logs, service.events])
    expect(seen).not.toContain(uri.searchParams.get('secret')!)
    for (const code of codes) {
      expect(seen).not.toContain(code)
      expect(seen).not.toContain(code.replaceAll('-', ''))
    }
  })

  it("an aal2 session of one user cannot remove another user's factor by its id", async () => {
    const service = await startMfaService()
    const { victimId } = await victimAndPending(service)
    const [factor] = await service.router.listFactors(victimId)
    const ownAddress = newAddress()
    const own = await enrolledUser(service, new Browser(service), ownAddress)
    pass(30)
    const attacker = new Browser(service)
    await firstFactor(service, attacker, ownAddress)
    expect((await verify(service, attacker, codeOf(own.key, now * 1000))).status).toBe(200)
    expect(await service.record(attacker)).toMatchObject({ aal: 2 })
    const res = await post(service, attacker, '/mfa/remove', { factorId: factor!.id }, true)
    expect(res.status).not.toBe(200)
    expect(await service.router.listFactors(victimId)).toHaveLength(2)
  })
})

describe('mfa attacks: hostile bodies on every /mfa route', () => {
  const routes = ['/mfa/verify', '/mfa/totp/setup', '/mfa/totp/confirm', '/mfa/recovery-codes', '/mfa/remove']
  const shapes = (csrfToken: string): Array<{ type: string; body: string }> => {
    const json = (value: Record<string, unknown>) => ({
      type: 'application/json',
      body: JSON.stringify({ csrfToken, ...value }),
    })
    return [
      json({ code: ['123456'], factor: ['recovery'], factorId: ['x'] }),
      json({ code: { length: 6 }, factor: { toString: 1 }, factorId: { $ne: null } }),
      json({ code: 123456, factor: 'recovery', factorId: 1 }),
      json({ code: null, factor: '__proto__', factorId: '__proto__' }),
      json({ code: '\uFDFD'.repeat(64), factor: 'recovery', factorId: 'constructor' }),
      json({ code: '\uD800'.repeat(10), factor: 'recovery', factorId: 'toString' }),
      json({ __proto__: { code: '1' }, constructor: { prototype: { code: '1' } } }),
      json({ code: 'x'.repeat(3000) }),
      { type: 'application/json', body: `{"csrfToken":"${csrfToken}","code":` },
      { type: 'application/json', body: '[]' },
      { type: 'application/json', body: 'null' },
      { type: 'application/json', body: `{"csrfToken":"${csrfToken}","code":"${'9'.repeat(6000)}"}` },
      {
        type: 'application/x-www-form-urlencoded',
        body: `csrfToken=${csrfToken}&code=1&code=2&factor=recovery&factor=totp&factorId[a]=1&code[]=3`,
      },
      { type: 'application/x-www-form-urlencoded', body: `csrfToken=${csrfToken}&code=%E0%A4%A&factor=%00` },
      { type: 'text/plain', body: 'code=123456' },
    ]
  }

  async function hammer(service: MfaService, browser: Browser, state: string) {
    const statuses: string[] = []
    for (const route of routes)
      for (const { type, body } of shapes(await browser.csrfToken())) {
        const res = await browser.jar.fetch(`${service.base}${route}`, {
          method: 'POST',
          body,
          headers: { 'content-type': type, accept: 'application/json' },
        })
        if (res.status >= 500) statuses.push(`${state} ${route} ${type} ${body.slice(0, 60)}: ${res.status}`)
      }
    for (const path of ['/mfa', '/mfa/setup'])
      for (const query of ['?callbackUrl=a&callbackUrl=b', '?callbackUrl=javascript:alert(1)', '?error=%E0%A4%A']) {
        const res = await browser.jar.fetch(`${service.base}${path}${query}`)
        if (res.status >= 500) statuses.push(`${state} GET ${path}${query}: ${res.status}`)
      }
    return statuses
  }

  it('answer no 500 and keep the process up: no cookie, a pending sign-in, a session with both factors', async () => {
    const service = await startMfaService()
    const { attacker, key, address } = await victimAndPending(service)
    const full = new Browser(service)
    await firstFactor(service, full, address)
    expect((await verify(service, full, codeOf(key, now * 1000))).status).toBe(200)
    const failures = [
      ...(await hammer(service, new Browser(service), 'none')),
      ...(await hammer(service, attacker, 'pending')),
      ...(await hammer(service, full, 'session')),
    ]
    expect(failures).toEqual([])
    expect((await full.jar.fetch(`${service.base}/csrf`)).status).toBe(200)
  })
})

describe('mfa attacks: locking the victim out', () => {
  it("an attacker's four wrong codes on their own pending sign-in leave the victim's real code working", async () => {
    const service = await startMfaService()
    const { address, attacker, key } = await victimAndPending(service)
    for (const code of ['000000', '111111', '222222', '333333']) await verify(service, attacker, code)
    await verify(service, attacker, 'aaaa-bbbb-cccc', 'recovery')
    const victim = new Browser(service)
    await firstFactor(service, victim, address)
    expect((await verify(service, victim, codeOf(key, now * 1000))).status).toBe(200)
  })

  it("inherent: ten codes per user in 15 minutes, so the password alone blocks the victim's real code for a while", async () => {
    const service = await startMfaService()
    const { address, attacker, key } = await victimAndPending(service)
    for (let i = 0; i < 4; i++) await verify(service, attacker, `00000${i}`)
    for (let round = 0; round < 2; round++) {
      const more = new Browser(service)
      await firstFactor(service, more, address)
      for (let i = 0; i < 3; i++) await verify(service, more, `1${round}000${i}`)
    }
    const victim = new Browser(service)
    await firstFactor(service, victim, address)
    // The limit holds (the safe side against guessing), at the cost of this lockout.
    expect((await verify(service, victim, codeOf(key, now * 1000))).status).toBe(401)
  })
})
