import type { Response } from 'express'
import { buildCookieSet } from '../../lib/config/cookies'
import { keyRing } from '../../lib/crypto/keys'
import { beginFlow, checkFlow, FLOW_LIFETIME, rebindFlows, type Flow, type FlowCookies, type FlowKeys } from '../../lib/sign-in/flow'

const SECRET = 'a-flow-secret-that-is-long-enough-12345678'
const NEW_SECRET = 'the-rotated-secret-that-is-long-enough-999'
const CSRF = 'csrf-token-of-this-browser'
const OTHER_CSRF = 'csrf-token-of-another-browser'
const FLOW: Flow = { provider: 'github', callbackUrl: 'http://localhost:3000/welcome', verifier: 'the-pkce-verifier', nonce: 'the-nonce' }
const def = buildCookieSet(false, {}, false).flow

const flowKeys = (...secrets: string[]): FlowKeys => ({ seal: keyRing(secrets, 'oauth-flow'), state: keyRing(secrets, 'oauth-state') })
const keys = flowKeys(SECRET)
const idOf = (state: string) => state.slice(0, state.indexOf('.'))

/**
 * The flow cookies of one browser. Each `send` is one request: the flow functions see the cookies
 * the browser sends and a response that records Set-Cookie, which the browser then applies.
 */
class Browser {
  cookies: Record<string, unknown> = {}
  setCookies: string[] = []

  send<T>(act: (io: FlowCookies) => T): T {
    const headers = new Map<string, unknown>()
    const res = { getHeader: (name: string) => headers.get(name.toLowerCase()), setHeader: (name: string, value: unknown) => headers.set(name.toLowerCase(), value) }
    const result = act({ cookies: { ...this.cookies }, def, res: res as unknown as Response })
    this.setCookies = ([] as unknown[]).concat(headers.get('set-cookie') ?? []).map(String)
    for (const line of this.setCookies) {
      const [pair = ''] = line.split(';', 1)
      const name = pair.slice(0, pair.indexOf('='))
      if (/Max-Age=0(;|$)/.test(line)) delete this.cookies[name]
      else this.cookies[name] = pair.slice(pair.indexOf('=') + 1)
    }
    return result
  }

  flowIds(): string[] {
    return Object.keys(this.cookies).filter((name) => name.startsWith(`${def.name}.`)).map((name) => name.slice(def.name.length + 1))
  }

  start(flow: Flow = FLOW, csrf = CSRF, under: FlowKeys = keys): string {
    return this.send((io) => beginFlow(under, io, csrf, flow))
  }

  check(state: unknown, options: { provider?: string; csrf?: string | null; keys?: FlowKeys } = {}): Flow | null {
    return this.send((io) => checkFlow(options.keys ?? keys, io, options.provider ?? 'github', state, options.csrf === undefined ? CSRF : options.csrf))
  }
}

/** Stops the clock at the real time; `advance` moves it on by whole seconds. */
function stopClock() {
  let now = Date.now()
  jest.spyOn(Date, 'now').mockImplementation(() => now)
  return { advance: (seconds: number) => { now += seconds * 1000 } }
}

afterEach(() => jest.restoreAllMocks())

describe('beginFlow and checkFlow', () => {
  it('checks a flow once, with the right provider, CSRF token and state, and gives it back', () => {
    const browser = new Browser()
    const state = browser.start()
    expect(state).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/)
    expect(browser.flowIds()).toEqual([idOf(state)])
    expect(browser.setCookies[0]).toMatch(new RegExp(`; HttpOnly; SameSite=Lax; Max-Age=${FLOW_LIFETIME}; `))

    expect(browser.check(state)).toEqual({ ...FLOW, id: idOf(state) })
    expect(browser.flowIds()).toEqual([])
    expect(browser.check(state)).toBeNull()
  })

  it('gives back no verifier or nonce for a flow started without them', () => {
    const browser = new Browser()
    const state = browser.start({ provider: 'github', callbackUrl: '/' })
    expect(browser.check(state)).toEqual({ id: idOf(state), provider: 'github', callbackUrl: '/' })
  })

  const refusals: Array<[string, (browser: Browser, state: string) => Flow | null]> = [
    ['for another provider', (browser, state) => browser.check(state, { provider: 'gitlab' })],
    ['with another CSRF token', (browser, state) => browser.check(state, { csrf: OTHER_CSRF })],
    ['without a CSRF token', (browser, state) => browser.check(state, { csrf: null })],
    ['with a tampered state', (browser, state) => browser.check(`${state.slice(0, -1)}${state.endsWith('A') ? 'B' : 'A'}`)],
    ['once expired', (browser, state) => { stopClock().advance(FLOW_LIFETIME + 1); return browser.check(state) }],
    ['when its cookie was sealed with another secret', (browser, state) => browser.check(state, { keys: flowKeys(NEW_SECRET) })],
  ]

  it.each(refusals)('refuses a flow %s, and clears its cookie', (_case, checkIt) => {
    const browser = new Browser()
    const state = browser.start()
    expect(checkIt(browser, state)).toBeNull()
    expect(browser.setCookies).toEqual([expect.stringMatching(new RegExp(`^${def.name}\\.${idOf(state)}=; .*Max-Age=0`))])
    expect(browser.flowIds()).toEqual([])
  })

  it('refuses a state whose flow cookie this browser does not have', () => {
    const state = new Browser().start()
    const other = new Browser()
    other.start()
    expect(other.check(state)).toBeNull()
    expect(other.flowIds()).toHaveLength(1)
  })

  const malformed: Array<[string, (state: string) => unknown]> = [
    ['that is not a string', () => 42],
    ['without a dot', (state) => state.replace('.', '')],
    ['with an empty flow id', (state) => state.slice(state.indexOf('.'))],
    ['over 200 characters', (state) => `${state}${'A'.repeat(200)}`],
  ]

  it.each(malformed)('refuses a state %s before touching the flow cookie', (_case, malform) => {
    const browser = new Browser()
    const state = browser.start()
    expect(browser.check(malform(state))).toBeNull()
    expect(browser.setCookies).toEqual([])
    expect(browser.flowIds()).toEqual([idOf(state)])
  })

  it('keeps at most 4 flows: a 5th drops the oldest', () => {
    const browser = new Browser()
    const clock = stopClock()
    const states: string[] = []
    for (let tab = 0; tab < 5; tab++) {
      states.push(browser.start())
      clock.advance(1)
    }
    const [oldest, ...newest] = states.map(idOf)
    expect(browser.flowIds().sort()).toEqual(newest.sort())
    expect(browser.flowIds()).not.toContain(oldest)
    expect(browser.check(states[4])).toMatchObject({ id: idOf(states[4]!) })
    expect(browser.check(states[0])).toBeNull()
  })

  it('still checks a flow one second before it expires', () => {
    const browser = new Browser()
    const clock = stopClock()
    const state = browser.start()
    clock.advance(FLOW_LIFETIME - 1)
    expect(browser.check(state)).toMatchObject({ id: idOf(state) })
  })

  it('checks a flow sealed under the old secret once the secret is rotated to [new, old]', () => {
    const browser = new Browser()
    const state = browser.start(FLOW, CSRF, flowKeys(SECRET))
    expect(browser.check(state, { keys: flowKeys(NEW_SECRET, SECRET) })).toEqual({ ...FLOW, id: idOf(state) })
  })
})

describe('rebindFlows', () => {
  /** One browser, two tabs: tab 1 completes its sign-in (check, then rebind, in one request, as the callback does). */
  function signInInTab1(browser: Browser, tab1: string) {
    return browser.send((io) => {
      const flow = checkFlow(keys, io, 'github', tab1, CSRF)
      rebindFlows(keys, io, CSRF, 'the-new-csrf-token', flow?.id)
      return flow
    })
  }

  it('carries a flow of another tab over to the new CSRF token', () => {
    const browser = new Browser()
    const tab1 = browser.start()
    const tab2 = browser.start({ ...FLOW, provider: 'gitlab' })
    expect(signInInTab1(browser, tab1)).toMatchObject({ id: idOf(tab1) })
    expect(browser.flowIds()).toEqual([idOf(tab2)])
    expect(browser.check(tab2, { provider: 'gitlab', csrf: 'the-new-csrf-token' })).toEqual({ ...FLOW, provider: 'gitlab', id: idOf(tab2) })
  })

  it('does not set the completed flow again', () => {
    const browser = new Browser()
    const tab1 = browser.start()
    signInInTab1(browser, tab1)
    expect(browser.setCookies.filter((line) => line.startsWith(`${def.name}.${idOf(tab1)}=`))).toEqual([expect.stringContaining('Max-Age=0')])
    expect(browser.flowIds()).toEqual([])
  })

  it('drops a planted flow (bound to another browser) and a cookie that does not open', () => {
    const attacker = new Browser()
    const planted = attacker.start(FLOW, OTHER_CSRF)
    const victim = new Browser()
    const tab1 = victim.start()
    victim.cookies[`${def.name}.${idOf(planted)}`] = attacker.cookies[`${def.name}.${idOf(planted)}`]
    victim.cookies[`${def.name}.garbage`] = 'not-a-sealed-flow'
    signInInTab1(victim, tab1)
    expect(victim.flowIds()).toEqual([])
    expect(victim.check(planted, { csrf: 'the-new-csrf-token' })).toBeNull()
  })
})
