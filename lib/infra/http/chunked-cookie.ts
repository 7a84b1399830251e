import type { Response } from 'express'
import type { CookieDef } from '../config/cookies'
import { COOKIE_BUDGET, cookiesAfter, headerChars, ONE_FLOW_SHARE } from './cookie-budget'
import { clearCookie, setCookie } from './cookies'

// A value too large for one cookie is split over `<name>.0`, `<name>.1`, … Browsers keep about
// 4 KB per cookie (name, value and attributes), and Node refuses request headers over 16 KB in all,
// so very large sessions belong in the database strategy.

/** Characters of a value per cookie. */
export const CHUNK_SIZE = 3800
/**
 * The most chunks a value may take. More would push a browser's Cookie header towards Node's 16 KB
 * limit for all headers, past which every request to the site fails (431) until the cookies expire.
 */
export const MAX_CHUNKS = 3

export function readChunked(cookies: Record<string, unknown>, name: string): string | null {
  const whole = cookies[name]
  if (typeof whole === 'string' && whole !== '') return whole
  let value = ''
  for (let index = 0; index < MAX_CHUNKS; index++) {
    const chunk = cookies[`${name}.${index}`]
    if (typeof chunk !== 'string' || chunk === '') break
    value += chunk
  }
  return value === '' ? null : value
}

/** True when the request carries the cookie or any chunk of it: no parsing, no crypto. */
export function hasChunked(cookies: Record<string, unknown>, name: string): boolean {
  return cookies[name] !== undefined || cookies[`${name}.0`] !== undefined
}

export function writeChunked(
  res: Response,
  cookies: Record<string, unknown>,
  def: CookieDef,
  value: string,
  maxAgeSeconds: number,
): void {
  const written = new Set<string>()
  if (value.length <= CHUNK_SIZE) {
    setCookie(res, def, value, maxAgeSeconds)
    written.add(def.name)
  } else {
    for (let index = 0; index * CHUNK_SIZE < value.length; index++) {
      const name = `${def.name}.${index}`
      setCookie(res, def, value.slice(index * CHUNK_SIZE, (index + 1) * CHUNK_SIZE), maxAgeSeconds, name)
      written.add(name)
    }
  }
  for (const name of presentNames(cookies, def.name)) if (!written.has(name)) clearCookie(res, def, name)
  keepWithinBudget(res, cookies, def, maxAgeSeconds)
}

/**
 * The session cookie's value is set: when the browser's Cookie header would then leave less than
 * ONE_FLOW_SHARE of COOKIE_BUDGET (./cookie-budget.ts), the session's logout cookie
 * (`<name>-logout`, lib/features/oidc-logout/provider-logout.ts), the one cookie that can go at no more cost than
 * sign-out's id_token_hint, is replaced by OVER_BUDGET, which says at sign-out why there is no hint.
 */
function keepWithinBudget(res: Response, cookies: Record<string, unknown>, def: CookieDef, maxAgeSeconds: number) {
  const logout = `${def.name}-logout`
  const after = cookiesAfter(cookies, res)
  const kept = after.get(logout)
  if (kept === undefined || kept === OVER_BUDGET) return
  if (headerChars(after) > COOKIE_BUDGET - ONE_FLOW_SHARE) setCookie(res, def, OVER_BUDGET, maxAgeSeconds, logout)
}

/** A logout cookie's value when the ID token it held did not fit in the Cookie budget (it opens to nothing). */
export const OVER_BUDGET = 'over-budget'

export function clearChunked(res: Response, cookies: Record<string, unknown>, def: CookieDef): void {
  for (const name of presentNames(cookies, def.name)) clearCookie(res, def, name)
}

/**
 * The cookie and those of its chunks the request carries, among the chunks that can exist: a
 * request with hundreds of made-up `<name>.N` cookies gets at most MAX_CHUNKS + 1 Set-Cookie lines.
 */
function presentNames(cookies: Record<string, unknown>, name: string): string[] {
  const names = cookies[name] === undefined ? [] : [name]
  for (let index = 0; index < MAX_CHUNKS; index++) {
    const chunk = `${name}.${index}`
    if (cookies[chunk] !== undefined) names.push(chunk)
  }
  return names
}
