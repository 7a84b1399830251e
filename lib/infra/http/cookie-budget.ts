import type { Response } from 'express'

/**
 * The Cookie header's budget. Node answers 431 to a request whose headers pass 16 KB in all (its
 * `maxHeaderSize`), and a browser sends every cookie of the site on every request: cookies that
 * pass the limit fail each request to the site, sign-out included, until the longest-lived of them
 * expires. So every cookie this package sets counts: the session cookie (up to MAX_CHUNKS chunks),
 * the CSRF cookie, the flow cookies of sign-ins and sign-outs under way, the logout cookie of
 * `logout: 'provider'`, and the small ones of the e-mail and passkey flows. With the app's own
 * cookies, the Cookie header stays within COOKIE_BUDGET, which leaves 2 KB of the 16 for the
 * request line and the browser's other headers. Who gives way, cheapest first: the logout cookie
 * (only sign-out's `id_token_hint` is lost; ./chunked-cookie.ts), then the oldest flows
 * (lib/core/sign-in/flow.ts). The session cookie and the flow just begun are never dropped.
 */
export const COOKIE_BUDGET = 14 * 1024

/** Kept free beside a session for one flow cookie (a sign-in under way, with an ordinary callbackUrl). */
export const ONE_FLOW_SHARE = 1024

/** What a cookie takes in a Cookie header: its name, `=`, its value and the `; ` before the next. */
export function cookieChars(name: string, value: string): number {
  return name.length + 1 + value.length + 2
}

/**
 * The cookies the browser sends after this response: the request's, with the Set-Cookie lines
 * this response has so far applied (a `Max-Age=0` line removes one). Values as sent, unparsed
 * (a `j:` value cookie-parser turned into an object counts as its JSON).
 */
export function cookiesAfter(cookies: Record<string, unknown>, res: Response): Map<string, string> {
  const after = new Map<string, string>()
  for (const [name, value] of Object.entries(cookies))
    after.set(name, typeof value === 'string' ? value : `j:${JSON.stringify(value)}`)
  const lines = res.getHeader('Set-Cookie')
  for (const line of Array.isArray(lines) ? lines : lines === undefined ? [] : [String(lines)]) {
    const pair = line.split(';', 1)[0]!
    const equals = pair.indexOf('=')
    if (equals < 1) continue
    const name = pair.slice(0, equals)
    if (/;\s*Max-Age=0(?:;|$)/i.test(line)) after.delete(name)
    else after.set(name, pair.slice(equals + 1))
  }
  return after
}

/** What `cookies` take in a Cookie header, those `skip` names left out. */
export function headerChars(cookies: ReadonlyMap<string, string>, skip: (name: string) => boolean = () => false) {
  let total = 0
  for (const [name, value] of cookies) if (!skip(name)) total += cookieChars(name, value)
  return total
}
