import type { Response } from 'supertest'

export interface ParsedCookie {
  name: string
  value: string
  attributes: Record<string, string | true>
}

/** The Set-Cookie lines of a response, parsed. */
export function setCookies(res: Response): ParsedCookie[] {
  const header = res.headers['set-cookie'] as unknown
  const lines = Array.isArray(header) ? header : typeof header === 'string' ? [header] : []
  return lines.map((line: string) => {
    const [pair = '', ...attrs] = line.split(/;\s*/)
    const eq = pair.indexOf('=')
    const attributes: Record<string, string | true> = {}
    for (const attr of attrs) {
      const at = attr.indexOf('=')
      if (at === -1) attributes[attr.toLowerCase()] = true
      else attributes[attr.slice(0, at).toLowerCase()] = attr.slice(at + 1)
    }
    return { name: pair.slice(0, eq), value: pair.slice(eq + 1), attributes }
  })
}

export function findCookie(res: Response, name: string): ParsedCookie | undefined {
  return setCookies(res).find((cookie) => cookie.name === name)
}

/** Asserts the response sets `name` with the given attributes; returns the cookie. */
export function expectCookie(res: Response, name: string, expected: { httpOnly?: boolean; secure?: boolean; sameSite?: string; path?: string; cleared?: boolean } = {}): ParsedCookie {
  const cookie = findCookie(res, name)
  if (!cookie) throw new Error(`expected a Set-Cookie for ${name}; got ${setCookies(res).map((c) => c.name).join(', ') || 'none'}`)
  const { attributes } = cookie
  if (expected.httpOnly !== undefined) expect(attributes.httponly === true).toBe(expected.httpOnly)
  if (expected.secure !== undefined) expect(attributes.secure === true).toBe(expected.secure)
  if (expected.sameSite !== undefined) expect(attributes.samesite).toBe(expected.sameSite)
  if (expected.path !== undefined) expect(attributes.path).toBe(expected.path)
  if (expected.cleared !== undefined) expect(attributes['max-age'] === '0').toBe(expected.cleared)
  return cookie
}

export function expectNoCookies(res: Response): void {
  expect(setCookies(res)).toEqual([])
}

/** A Cookie request header from name/value pairs. */
export function cookieHeader(cookies: Record<string, string>): string {
  return Object.entries(cookies).map(([name, value]) => `${name}=${value}`).join('; ')
}
