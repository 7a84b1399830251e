import session from 'express-session'
import { oidc } from '../../lib'
import { serve } from '../support/app'
import { Browser } from '../support/browser'
import { restoreClock, setClock, useClock } from '../support/clock'
import { startHostileIssuer } from '../support/hostile-issuer'
import { later } from '../support/email-harness'
import { GOOD, formTo, linkIn, passwordSignIn, signUp, submit } from '../password/password-harness'
import { codeOf, enrolledUser, newAddress, post, startMfaService, stopAll, type MfaService } from '../mfa/mfa-harness'

/**
 * The second round of an outside attack on `mfa` and step-up: what an attacker who knows a
 * victim's password (and at most a stolen code or session) can keep, and what a user who signs
 * out, resets the password or ends a device expects to be over. Each test asserts the safe
 * behaviour: a failing test is a finding.
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

const NEW = 'amber-lantern-quarry-87'

/** The password alone, in `browser`: its pending sign-in's URL (or, with no factor due, the callbackUrl). */
async function firstFactor(service: MfaService, browser: Browser, address: string, secret = GOOD): Promise<string> {
  const res = await passwordSignIn(service, browser, address, secret)
  expect(res.status).toBe(200)
  return ((await res.json()) as { url: string }).url
}

function verify(service: MfaService, browser: Browser, code: string, factor = 'totp') {
  return post(service, browser, '/mfa/verify', { factor, code, callbackUrl: '/welcome' }, true)
}

async function signedIn(service: MfaService, browser: Browser): Promise<boolean> {
  return (await service.record(browser)) !== null
}

/** The enrolled victim (signed in, with both factors, in `victim`) and the attacker's browser after the password. */
async function victimAndPending(service: MfaService) {
  const address = newAddress()
  const victim = new Browser(service)
  const enrolled = await enrolledUser(service, victim, address)
  const victimId = (await service.record(victim))!.userId
  pass(30)
  const attacker = new Browser(service)
  expect(await firstFactor(service, attacker, address)).toContain('/mfa?')
  return { address, victim, attacker, victimId, ...enrolled }
}

/** The step-up page for the browser's signed-in user (`requireAuth` sends a page load there): marks the re-authentication. */
async function stepUpPage(service: { base: string }, browser: Browser): Promise<void> {
  const page = await browser.jar.fetch(`${service.base}/signin?reauth=1&callbackUrl=%2Fpayout`)
  expect(page.status).toBe(200)
  expect(browser.cookie('auth.reauth')).toBeDefined()
}

describe('mfa attacks 2: a sign-in held for its second factor outlives what should end it', () => {
  it('sign-out everywhere ends a pending sign-in begun before it: a code afterwards makes no session', async () => {
    const service = await startMfaService()
    const { attacker, victim, recoveryCodes: codes } = await victimAndPending(service)
    // The victim sees the alert ("a new sign-in"), and signs out everywhere.
    pass(1)
    expect((await victim.signOut({ everywhere: 'true' })).status).toBe(302)
    pass(1)
    // The attacker, who found a recovery code, finishes the sign-in the password began.
    await verify(service, attacker, codes[0]!, 'recovery')
    expect(await signedIn(service, attacker)).toBe(false)
  })

  it('a password reset ends a pending sign-in made with the old password', async () => {
    const service = await startMfaService()
    const { address, attacker, key } = await victimAndPending(service)
    pass(1)
    const owner = new Browser(service)
    await submit(owner, service.base, '/password/forgot', { email: address, csrfToken: await owner.csrfToken() })
    const link = linkIn(await service.smtp.nextMessage(), service.base, '/password/reset')
    const page = await owner.jar.fetch(link, {}, { crossSite: true })
    const form = formTo(await page.text(), service.base, '/password/reset')
    const reset = await submit(owner, service.base, '/password/reset', { ...form.fields, password: NEW })
    expect(reset.headers.get('location')).toMatch(/\/password\/done\?kind=reset/)
    pass(30)
    // The old password is no more; a code phished from the victim (or read over their shoulder) finishes what it began.
    await verify(service, attacker, codeOf(key, now * 1000))
    expect(await signedIn(service, attacker)).toBe(false)
  })
})

describe('mfa attacks 2: a pending sign-in and a password change (database sessions)', () => {
  it('a password change ends a pending sign-in made with the old password', async () => {
    const service = await startMfaService(undefined, {
      options: { session: { strategy: 'database', store: new session.MemoryStore() } },
    })
    const { address, attacker, key } = await victimAndPending(service)
    // The victim signs in with both factors on their own device, and changes the password.
    const owner = new Browser(service)
    await firstFactor(service, owner, address)
    expect((await verify(service, owner, codeOf(key, now * 1000))).status).toBe(200)
    pass(1)
    const changed = await post(service, owner, '/password/change', { currentPassword: GOOD, newPassword: NEW })
    expect(changed.status).toBe(302)
    expect(service.events.map(({ name }) => name)).toContain('passwordChanged')
    pass(30)
    await verify(service, attacker, codeOf(key, now * 1000))
    expect(await signedIn(service, attacker)).toBe(false)
  })
})

describe('mfa attacks 2: the step-up mark (auth.reauth)', () => {
  it('ends with sign-out: the next person at a shared computer signs in as themselves', async () => {
    const service = await startMfaService()
    const alice = new Browser(service)
    await signUp(service, alice, newAddress(), GOOD)
    const bobAddress = newAddress()
    await signUp(service, new Browser(service), bobAddress, GOOD)
    // Alice was asked to sign in again (a payout), gave up, and signed out.
    await stepUpPage(service, alice)
    expect((await alice.signOut()).status).toBe(302)
    expect(await signedIn(service, alice)).toBe(false)
    // Bob, at the same browser a minute later.
    pass(60)
    const res = await passwordSignIn(service, alice, bobAddress, GOOD)
    expect(((await res.json()) as { url: string }).url).not.toContain('error=AccessDenied')
    expect((await service.record(alice))?.userId).toBeDefined()
  })
})

describe('mfa attacks 2: a re-authentication moves the session, and what ends it still does', () => {
  /** A memory store that can hold the write of a re-authenticated record (the one naming its handle's sid) until let go. */
  function gatedStore() {
    const store = new session.MemoryStore()
    const held: Array<() => void> = []
    let armed = 0
    let arrived: () => void = () => undefined
    const waiting = new Promise<void>((resolve) => (arrived = resolve))
    const set = store.set.bind(store)
    store.set = (sid, value, callback) => {
      if (armed > 0 && typeof (value as unknown as { hsid?: unknown }).hsid === 'string') {
        held.push(() => set(sid, value, callback))
        if (held.length === armed) arrived()
        return
      }
      set(sid, value, callback)
    }
    return {
      store,
      /** Hold the next `count` re-authenticated records' writes. */
      arm(count: number) {
        armed = count
      },
      waiting,
      release() {
        armed = 0
        for (const go of held.splice(0)) go()
      },
    }
  }

  it('revokeSession while the device re-authenticates ends it (database sessions)', async () => {
    const gate = gatedStore()
    const service = await startMfaService(undefined, {
      options: { session: { strategy: 'database', store: gate.store } },
    })
    const address = newAddress()
    const device = new Browser(service)
    await signUp(service, device, address, GOOD)
    const { userId, handle } = (await service.record(device))!
    await stepUpPage(service, device)
    gate.arm(1)
    const reauth = passwordSignIn(service, device, address, GOOD)
    await gate.waiting
    // The user, on another device, ends this one ("sign out that device").
    expect(await service.router.revokeSession(userId, handle!)).toBe(true)
    gate.release()
    expect((await reauth).status).toBe(200)
    expect(await signedIn(service, device)).toBe(false)
    expect(await service.router.listSessions(userId)).toEqual([])
  })

  it('two re-authentications of one session at once (a double submit) leave one session, listed once (database)', async () => {
    const gate = gatedStore()
    const service = await startMfaService(undefined, {
      options: { session: { strategy: 'database', store: gate.store } },
    })
    const address = newAddress()
    const device = new Browser(service)
    await signUp(service, device, address, GOOD)
    const { userId, handle } = (await service.record(device))!
    await stepUpPage(service, device)
    gate.arm(2)
    const both = Promise.all([
      passwordSignIn(service, device, address, GOOD),
      passwordSignIn(service, device, address, GOOD),
    ])
    await gate.waiting
    gate.release()
    await both
    const listed = await service.router.listSessions(userId)
    expect(listed.map((one) => one.handle)).toEqual([handle])
    // Ending it from the device list signs the device out.
    await service.router.revokeSession(userId, handle!)
    expect(await signedIn(service, device)).toBe(false)
  })

  it("a provider's back-channel logout of the sign-in still ends a session re-authenticated ten times", async () => {
    const issuer = await startHostileIssuer()
    later(() => issuer.stop())
    const app = await serve({
      providers: [
        oidc({ id: 'hostile', issuer: issuer.issuer, clientId: issuer.clientId, clientSecret: issuer.clientSecret }),
      ],
      session: { strategy: 'database', store: new session.MemoryStore() },
      requestRateLimit: { limit: 10_000 },
    })
    later(() => app.close())
    const browser = new Browser(app)
    issuer.behave({ idTokenClaims: { sid: 'laptop' } })
    expect((await browser.signIn('hostile')).status).toBe(302)
    // Asked to sign in again, ten times, each through another provider session (a new login there).
    for (let i = 0; i < 10; i++) {
      await stepUpPage(app, browser)
      // A fresh sign-in there, as a step-up asks (prompt=login, max_age=0): its auth_time is now.
      issuer.behave({ idTokenClaims: { sid: `again-${i}`, auth_time: Math.floor(Date.now() / 1000) } })
      expect((await browser.signIn('hostile')).status).toBe(302)
      expect(browser.cookie('auth.reauth')).toBeUndefined()
    }
    expect((await browser.session()).user).toMatchObject({ email: 'alice@example.com' })
    const at = Math.floor(Date.now() / 1000)
    const claims = { iss: issuer.issuer, aud: issuer.clientId, iat: at, jti: `jti-${at}-laptop` }
    const EVENT = 'http://schemas.openid.net/event/backchannel-logout'
    const token = await issuer.sign({ ...claims, events: { [EVENT]: {} }, sid: 'laptop' }, { typ: 'logout+jwt' })
    const res = await fetch(`${app.base}/backchannel-logout/hostile`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ logout_token: token }),
    })
    expect(res.status).toBe(200)
    expect(await browser.session()).toEqual({})
  })
})
