import { open, seal } from '../../infra/crypto/jwe'
import type { KeyRing } from '../../infra/crypto/keys'
import { mac, safeEqual, verifyMac } from '../../infra/crypto/mac'
import { randomToken } from '../../infra/crypto/random'
import { COOKIE_BUDGET, cookiesAfter, headerChars } from '../../infra/http/cookie-budget'
import { clearCookie, setCookie, type CookieIo } from '../../infra/http/cookies'

/**
 * One OAuth sign-in, or a provider's sign-out (provider `logout:<id>`, lib/features/oidc-logout/), in
 * progress, sealed in its own cookie `<flow cookie>.<flow id>` for at most 15 minutes. `state` is
 * `<flow id>.<HMAC(CSRF token, provider, flow id, r)>`: it binds the callback to the browser that
 * started the flow (its CSRF cookie) and to the provider; `r` is a random value only the sealed cookie knows.
 */
export interface Flow {
  /** Set on a checked flow: its id. */
  readonly id?: string
  readonly provider: string
  readonly callbackUrl: string
  readonly verifier?: string
  readonly nonce?: string
  /**
   * A step-up's sign-in (lib/core/sign-in/reauth.ts): when it started, in seconds. The provider is
   * asked for a fresh sign-in and must say it made one after this (OpenID Connect's `auth_time`).
   */
  readonly reauthAt?: number
}

interface SealedFlow {
  p: string
  r: string
  /** The state's MAC, as sent to the provider. */
  s: string
  /** The same binding re-made for a new CSRF token (after another tab signed in). */
  b?: string
  u: string
  v?: string
  n?: string
  /** Flow.reauthAt. */
  a?: number
  exp: number
}

export interface FlowKeys {
  readonly seal: KeyRing
  readonly state: KeyRing
}

export const FLOW_LIFETIME = 15 * 60
/** Several tabs may sign in at once; past this many flows, the oldest is dropped. */
const MAX_FLOWS = 4
/**
 * All flow cookies together stay under this many characters (names and values), the oldest flows
 * dropped first: with a long callbackUrl each, four flows would otherwise push the request headers
 * past the server's limit, and every request of the site would fail until they expire.
 */
export const MAX_FLOW_BYTES = 4096
/** Past this many flow cookies, the rest are left alone: a request cannot make us write hundreds. */
const MAX_FLOW_COOKIES_READ = 8
const now = () => Math.floor(Date.now() / 1000)

/** Starts a flow: sets its cookie and returns the `state` to send to the provider. */
export function beginFlow(keys: FlowKeys, io: CookieIo, csrfToken: string, flow: Flow): string {
  const id = randomToken(12)
  const r = randomToken(16)
  const s = mac(keys.state.current, csrfToken, flow.provider, id, r)
  const sealed: SealedFlow = { p: flow.provider, r, s, u: flow.callbackUrl, exp: now() + FLOW_LIFETIME }
  if (flow.verifier !== undefined) sealed.v = flow.verifier
  if (flow.nonce !== undefined) sealed.n = flow.nonce
  if (flow.reauthAt !== undefined) sealed.a = flow.reauthAt
  const name = `${io.def.name}.${id}`
  const value = seal(keys.seal.current, sealed)
  makeRoom(keys, io, name.length + value.length + 1)
  setCookie(io.res, io.def, value, FLOW_LIFETIME, name)
  return `${id}.${s}`
}

/**
 * The flow a callback's `state` belongs to, or null when its cookie is missing, expired, for
 * another provider, or not bound to this browser's CSRF token. The flow cookie is cleared either
 * way: a flow is used once.
 */
export function checkFlow(
  keys: FlowKeys,
  io: CookieIo,
  provider: string,
  state: unknown,
  csrfToken: string | null,
): Flow | null {
  if (typeof state !== 'string' || state.length > 200) return null
  const dot = state.indexOf('.')
  const id = state.slice(0, dot)
  if (dot <= 0 || !/^[\w-]+$/.test(id)) return null
  const name = `${io.def.name}.${id}`
  if (io.cookies[name] === undefined) return null
  clearCookie(io.res, io.def, name)
  const sealed = openFlow(keys, io.cookies[name])
  if (!sealed || sealed.p !== provider || csrfToken === null) return null
  const stateMatches = safeEqual(state.slice(dot + 1), sealed.s)
  if (!stateMatches || !isBound(keys, sealed, id, csrfToken)) return null
  return {
    id,
    provider: sealed.p,
    callbackUrl: sealed.u,
    ...(sealed.v ? { verifier: sealed.v } : {}),
    ...(sealed.n ? { nonce: sealed.n } : {}),
    ...(sealed.a === undefined ? {} : { reauthAt: sealed.a }),
  }
}

/**
 * After a sign-in the CSRF token changes. The other flows this browser has in progress (other tabs)
 * were bound to the old token: re-bind each one that verifies against it to the new token, and
 * drop any that does not (a planted or stale cookie is never carried over).
 */
export function rebindFlows(
  keys: FlowKeys,
  io: CookieIo,
  oldToken: string,
  newToken: string,
  completed?: string,
): void {
  for (const [name, id, value] of flowCookies(io)) {
    if (id === completed) continue
    const sealed = openFlow(keys, value)
    if (!sealed || !isBound(keys, sealed, id, oldToken)) {
      clearCookie(io.res, io.def, name)
      continue
    }
    const rebound: SealedFlow = { ...sealed, b: mac(keys.state.current, newToken, sealed.p, id, sealed.r) }
    setCookie(io.res, io.def, seal(keys.seal.current, rebound), sealed.exp - now(), name)
  }
}

function isBound(keys: FlowKeys, sealed: SealedFlow, id: string, csrfToken: string): boolean {
  const parts = [csrfToken, sealed.p, id, sealed.r]
  return (
    verifyMac(keys.state, sealed.s, ...parts) || (sealed.b !== undefined && verifyMac(keys.state, sealed.b, ...parts))
  )
}

/**
 * Before a new flow of `size` characters: drops flow cookies that do not open, then the oldest
 * flows until at most MAX_FLOWS - 1 remain and all of them with the new one fit MAX_FLOW_BYTES.
 */
function makeRoom(keys: FlowKeys, io: CookieIo, size: number): void {
  const live: Array<{ name: string; exp: number; size: number }> = []
  for (const [name, , value] of flowCookies(io)) {
    const sealed = openFlow(keys, value)
    if (sealed) live.push({ name, exp: sealed.exp, size: name.length + String(value).length + 1 })
    else clearCookie(io.res, io.def, name)
  }
  live.sort((a, b) => b.exp - a.exp)
  // The flows share the Cookie budget with every other cookie the browser holds after this response.
  const prefix = `${io.def.name}.`
  const others = headerChars(cookiesAfter(io.cookies, io.res), (name) => name.startsWith(prefix))
  const room = Math.min(MAX_FLOW_BYTES, COOKIE_BUDGET - others)
  let total = size
  live.forEach((flow, index) => {
    total += flow.size
    if (index >= MAX_FLOWS - 1 || total > room) clearCookie(io.res, io.def, flow.name)
  })
}

/** The request's flow cookies: name, flow id and value, at most MAX_FLOW_COOKIES_READ of them. */
function* flowCookies(io: CookieIo): Generator<[string, string, unknown]> {
  const prefix = `${io.def.name}.`
  let seen = 0
  for (const [name, value] of Object.entries(io.cookies)) {
    if (!name.startsWith(prefix)) continue
    if (++seen > MAX_FLOW_COOKIES_READ) return
    yield [name, name.slice(prefix.length), value]
  }
}

function openFlow(keys: FlowKeys, value: unknown): SealedFlow | null {
  const claims = open(keys.seal, value)
  if (!claims) return null
  const { p, r, s, b, u, v, n, a, exp } = claims
  if (
    typeof p !== 'string' ||
    typeof r !== 'string' ||
    typeof s !== 'string' ||
    typeof u !== 'string' ||
    typeof exp !== 'number'
  )
    return null
  if (exp <= now() || [b, v, n].some((field) => field !== undefined && typeof field !== 'string')) return null
  if (a !== undefined && typeof a !== 'number') return null
  return claims as unknown as SealedFlow
}
