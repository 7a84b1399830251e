import { CompactEncrypt } from 'jose'
import { buildCookieSet } from '../../lib/infra/config/cookies'
import { keyRing } from '../../lib/infra/crypto/keys'
import {
  beginFlow,
  checkFlow,
  FLOW_LIFETIME,
  MAX_FLOW_BYTES,
  rebindFlows,
  type Flow,
  type FlowKeys,
} from '../../lib/core/sign-in/flow'
import type { CookieIo } from '../../lib/infra/http/cookies'
import { clockAt, setClock } from '../support/clock'
import { isCleared, setCookieLines, setCookies } from '../support/cookies'
import { fakeResponse } from '../support/fake-response'

const SECRET = 'a-flow-secret-that-is-long-enough-12345678'
const NEW_SECRET = 'the-rotated-secret-that-is-long-enough-999'
const CSRF = 'csrf-token-of-this-browser'
const OTHER_CSRF = 'csrf-token-of-another-browser'
const FLOW: Flow = {
  provider: 'github',
  callbackUrl: 'http://localhost:3000/welcome',
  verifier: 'the-pkce-verifier',
  nonce: 'the-nonce',
}
const def = buildCookieSet(false, {}, false).flow

const flowKeys = (...secrets: string[]): FlowKeys => ({
  seal: keyRing(secrets, 'oauth-flow'),
  state: keyRing(secrets, 'oauth-state'),
})
const keys = flowKeys(SECRET)
const idOf = (state: string) => state.slice(0, state.indexOf('.'))

/**
 * The flow cookies of one browser. Each `send` is one request: the flow functions see the cookies
 * the browser sends and a response that records Set-Cookie, which the browser then applies. Unlike
 * the cookie jar of the flow specs, it keeps a cookie past its Max-Age until told to clear it: the
 * flow's own expiry, sealed inside the cookie, is what these specs check.
 */
class Browser {
  cookies: Record<string, unknown> = {}
  /** The Set-Cookie lines of the last request. */
  setCookies: string[] = []

  send<T>(act: (io: CookieIo) => T): T {
    const { res, sent } = fakeResponse()
    const result = act({ cookies: { ...this.cookies }, def, res })
    this.setCookies = setCookieLines(sent)
    for (const cookie of setCookies(sent)) {
      if (isCleared(cookie)) delete this.cookies[cookie.name]
      else this.cookies[cookie.name] = cookie.value
    }
    return result
  }

  flowIds(): string[] {
    return Object.keys(this.cookies)
      .filter((name) => name.startsWith(`${def.name}.`))
      .map((name) => name.slice(def.name.length + 1))
  }

  start(flow: Flow = FLOW, csrf = CSRF, under: FlowKeys = keys): string {
    return this.send((io) => beginFlow(under, io, csrf, flow))
  }

  check(state: unknown, options: { provider?: string; csrf?: string | null; keys?: FlowKeys } = {}): Flow | null {
    return this.send((io) =>
      checkFlow(
        options.keys ?? keys,
        io,
        options.provider ?? 'github',
        state,
        options.csrf === undefined ? CSRF : options.csrf,
      ),
    )
  }
}

/** Every test starts with the clock standing at NOW; one that needs time to pass moves it. */
const NOW = 1_800_000_000
clockAt(NOW)

describe('beginFlow and checkFlow', () => {
  it('checks a flow once, with the right provider, CSRF token and state, and gives it back', () => {
    const browser = new Browser()
    const state = browser.start()
    expect(state).toMatch(/^[\w-]+\.[\w-]{43}$/)
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
    [
      'with a tampered state',
      (browser, state) => browser.check(`${state.slice(0, -1)}${state.endsWith('A') ? 'B' : 'A'}`),
    ],
    [
      'once expired',
      (browser, state) => {
        setClock(NOW + FLOW_LIFETIME + 1)
        return browser.check(state)
      },
    ],
    [
      'at the second it expires',
      (browser, state) => {
        setClock(NOW + FLOW_LIFETIME)
        return browser.check(state)
      },
    ],
    [
      'when its cookie was sealed with another secret',
      (browser, state) => browser.check(state, { keys: flowKeys(NEW_SECRET) }),
    ],
  ]

  it.each(refusals)('refuses a flow %s, and clears its cookie', (_case, checkIt) => {
    const browser = new Browser()
    const state = browser.start()
    expect(checkIt(browser, state)).toBeNull()
    expect(browser.setCookies).toEqual([
      expect.stringMatching(new RegExp(`^${def.name}\\.${idOf(state)}=; .*Max-Age=0`)),
    ])
    expect(browser.flowIds()).toEqual([])
  })

  it('refuses a state whose flow cookie this browser does not have', () => {
    const state = new Browser().start()
    const other = new Browser()
    other.start()
    expect(other.check(state)).toBeNull()
    expect(other.setCookies).toEqual([])
    expect(other.flowIds()).toHaveLength(1)
  })

  it('refuses a state without a dot before touching the flow cookie its characters would name', () => {
    const browser = new Browser()
    const state = browser.start()
    expect(browser.check(`${idOf(state)}A`)).toBeNull()
    expect(browser.setCookies).toEqual([])
    expect(browser.flowIds()).toEqual([idOf(state)])
  })

  it.each(['a!b', '!ab', 'ab!'])(
    'refuses a state whose flow id %s is not base64url, even when a cookie of that name exists',
    (id) => {
      const browser = new Browser()
      browser.cookies[`${def.name}.${id}`] = 'planted'
      expect(browser.check(`${id}.${'A'.repeat(43)}`)).toBeNull()
      expect(browser.setCookies).toEqual([])
    },
  )

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
    const states: string[] = []
    for (let tab = 0; tab < 5; tab++) {
      states.push(browser.start())
      setClock(NOW + tab + 1)
    }
    const [oldest, ...newest] = states.map(idOf)
    expect(browser.flowIds().sort()).toEqual(newest.sort())
    expect(browser.flowIds()).not.toContain(oldest)
    expect(browser.check(states[4])).toMatchObject({ id: idOf(states[4]!) })
    expect(browser.check(states[0])).toBeNull()
  })

  /** The characters a flow with this callbackUrl adds to the request's Cookie header: name, `=` and value. */
  function cookieSize(callbackUrl: string): number {
    const browser = new Browser()
    browser.start({ provider: 'github', callbackUrl })
    const [name] = Object.keys(browser.cookies) as [string]
    return name.length + 1 + String(browser.cookies[name]).length
  }

  /** Two callbackUrls whose flows' cookies add up to `total` characters. */
  function urlsAddingUpTo(total: number): [string, string] {
    for (let first = 1300; first < 1310; first++) {
      const firstUrl = `/${'a'.repeat(first)}`
      const rest = total - cookieSize(firstUrl)
      for (let second = 1250; second < 1450; second++) {
        const secondUrl = `/${'b'.repeat(second)}`
        if (cookieSize(secondUrl) === rest) return [firstUrl, secondUrl]
      }
    }
    throw new Error(`no two flows of ${total} characters`)
  }

  it(`keeps an older flow when both flows' cookies take exactly ${MAX_FLOW_BYTES} characters, and drops it past that`, () => {
    for (const [total, kept] of [
      [MAX_FLOW_BYTES, true],
      [MAX_FLOW_BYTES + 1, false],
    ] as const) {
      const [older, newer] = urlsAddingUpTo(total)
      const browser = new Browser()
      const first = idOf(browser.start({ provider: 'github', callbackUrl: older }))
      setClock(NOW + 1)
      const second = idOf(browser.start({ provider: 'github', callbackUrl: newer }))
      setClock(NOW)
      expect(browser.flowIds().sort()).toEqual((kept ? [first, second] : [second]).sort())
    }
  })

  it('clears up to 8 flow cookies that do not open when a flow starts, and leaves any beyond 8 alone', () => {
    for (const [count, cleared] of [
      [8, 8],
      [9, 8],
    ] as const) {
      const browser = new Browser()
      for (let index = 0; index < count; index++) browser.cookies[`${def.name}.stale${index}`] = 'not-a-sealed-flow'
      browser.start()
      expect(browser.setCookies.filter((line) => /^[^=]+\.stale\d=; .*Max-Age=0/.test(line))).toHaveLength(cleared)
    }
  })

  /** A flow cookie sealed (by jose) under the flow key: what `beginFlow` writes, with `fields` changed. */
  async function sealedFlow(fields: Record<string, unknown>): Promise<string> {
    const claims = { p: 'github', r: 'r', s: 's', u: '/', exp: NOW + 600, ...fields }
    return new CompactEncrypt(Buffer.from(JSON.stringify(claims)))
      .setProtectedHeader({ alg: 'dir', enc: 'A256GCM' })
      .encrypt(keys.seal.current)
  }

  it.each([
    ['a number for the provider', { p: 1 }],
    ['a number for r', { r: 1 }],
    ['a number for the state MAC', { s: 1 }],
    ['a number for the callbackUrl', { u: 1 }],
    ['a string for exp', { exp: String(NOW + 600) }],
    ['no exp', { exp: undefined }],
    ['a number for the re-binding MAC', { b: 1 }],
    ['an object for the verifier', { v: {} }],
    ['a number for the nonce', { n: 1 }],
  ])('clears a flow cookie sealed with %s when a flow starts', async (_case, fields) => {
    const browser = new Browser()
    browser.cookies[`${def.name}.other`] = await sealedFlow(fields)
    browser.start()
    expect(browser.flowIds()).not.toContain('other')
  })

  it('keeps a well-formed flow cookie of another tab when a flow starts', async () => {
    const browser = new Browser()
    browser.cookies[`${def.name}.other`] = await sealedFlow({ b: 'b', v: 'v', n: 'n' })
    browser.start()
    expect(browser.flowIds()).toContain('other')
  })

  it('still checks a flow one second before it expires', () => {
    const browser = new Browser()
    const state = browser.start()
    setClock(NOW + FLOW_LIFETIME - 1)
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
    setClock(NOW + 100)
    expect(signInInTab1(browser, tab1)).toMatchObject({ id: idOf(tab1) })
    expect(browser.flowIds()).toEqual([idOf(tab2)])
    // Set again for the rest of its 15 minutes, not longer.
    expect(browser.setCookies.filter((line) => line.startsWith(`${def.name}.${idOf(tab2)}=`))).toEqual([
      expect.stringContaining(`Max-Age=${FLOW_LIFETIME - 100};`),
    ])
    expect(browser.check(tab2, { provider: 'gitlab', csrf: 'the-new-csrf-token' })).toEqual({
      ...FLOW,
      provider: 'gitlab',
      id: idOf(tab2),
    })
  })

  it('does not set the completed flow again', () => {
    const browser = new Browser()
    const tab1 = browser.start()
    signInInTab1(browser, tab1)
    expect(browser.setCookies.filter((line) => line.startsWith(`${def.name}.${idOf(tab1)}=`))).toEqual([
      expect.stringContaining('Max-Age=0'),
    ])
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
