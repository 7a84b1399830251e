import { splitSetCookie } from './cookie-jar'

/**
 * Assertions on the Set-Cookie lines of one answer: a supertest response, or what a fake response
 * recorded (./fake-response). Lines are read with the cookie jar's parser (./cookie-jar).
 */

/** An answer with headers: a supertest response, or `sent` from ./fake-response. */
export interface Answer {
  headers: Record<string, unknown>
}

export interface ParsedCookie {
  name: string
  value: string
  /** By lower-cased name, values as sent; `true` for one without a value (HttpOnly, Secure). */
  attributes: Record<string, string | true>
}

/** The Set-Cookie lines of an answer, as sent. */
export function setCookieLines(answer: Answer): string[] {
  const header = answer.headers['set-cookie']
  return header === undefined ? [] : ([] as unknown[]).concat(header).map(String)
}

/** The Set-Cookie lines of an answer, parsed; a line that holds no cookie fails the spec. */
export function setCookies(answer: Answer): ParsedCookie[] {
  return setCookieLines(answer).map((line) => {
    const cookie = splitSetCookie(line)
    if (!cookie) throw new Error(`a Set-Cookie line that holds no cookie: ${JSON.stringify(line)}`)
    return { name: cookie.name, value: cookie.value, attributes: Object.fromEntries(cookie.attributes) }
  })
}

export function findCookie(answer: Answer, name: string): ParsedCookie | undefined {
  return setCookies(answer).find((cookie) => cookie.name === name)
}

/** Asserts the answer sets `name` with the given attributes; returns the cookie. */
export function expectCookie(
  answer: Answer,
  name: string,
  expected: { httpOnly?: boolean; secure?: boolean; sameSite?: string; path?: string; cleared?: boolean } = {},
): ParsedCookie {
  const cookie = findCookie(answer, name)
  if (!cookie)
    throw new Error(
      `expected a Set-Cookie for ${name}; got ${
        setCookies(answer)
          .map((c) => c.name)
          .join(', ') || 'none'
      }`,
    )
  const { attributes } = cookie
  if (expected.httpOnly !== undefined) expect(attributes.httponly === true).toBe(expected.httpOnly)
  if (expected.secure !== undefined) expect(attributes.secure === true).toBe(expected.secure)
  if (expected.sameSite !== undefined) expect(attributes.samesite).toBe(expected.sameSite)
  if (expected.path !== undefined) expect(attributes.path).toBe(expected.path)
  if (expected.cleared !== undefined) expect(isCleared(cookie)).toBe(expected.cleared)
  return cookie
}

export function expectNoCookies(answer: Answer): void {
  expect(setCookies(answer)).toEqual([])
}

/** The line deletes the cookie (Max-Age=0). */
export function isCleared(cookie: ParsedCookie): boolean {
  return cookie.attributes['max-age'] === '0'
}

/** A Cookie request header from name/value pairs. */
export function cookieHeader(cookies: Record<string, string>): string {
  return Object.entries(cookies)
    .map(([name, value]) => `${name}=${value}`)
    .join('; ')
}
