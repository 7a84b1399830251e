/**
 * Session cookies for specs, from the known-answer vectors of ./session-vectors (never minted by
 * lib/): a spec sets the clock (./clock) to a time when its vector is valid, then sends it.
 */
import { cookieHeader } from './cookies'

export { ADA, DAY, KEYS, OTHER_SECRET, SIGNED_IN_AT, VALID_AT, VECTORS } from './session-vectors'

export const SESSION_COOKIE = 'auth.session-token'
/** The wire format: a token longer than this travels as `<name>.0`, `<name>.1`, … of this many characters. */
export const CHUNK_LENGTH = 3800

/** The cookies a browser holds for a session token: one cookie, or its chunks when the token is long. */
export function sessionCookies(token: string, name = SESSION_COOKIE): Record<string, string> {
  if (token.length <= CHUNK_LENGTH) return { [name]: token }
  const cookies: Record<string, string> = {}
  for (let index = 0; index * CHUNK_LENGTH < token.length; index++) {
    cookies[`${name}.${index}`] = token.slice(index * CHUNK_LENGTH, (index + 1) * CHUNK_LENGTH)
  }
  return cookies
}

/** The `Cookie` request header that carries a session token (see `sessionCookies`). */
export function sessionCookie(token: string, name = SESSION_COOKIE): string {
  return cookieHeader(sessionCookies(token, name))
}

/** A 32-byte key from its hex form, as the specs' independent key material. */
export function keyFromHex(hex: string): Buffer {
  return Buffer.from(hex, 'hex')
}

/** A key ring (lib's `KeyRing` shape) of keys given, not derived by lib/: the first seals and signs, all open and verify. */
export function ringOf(...keys: [Buffer, ...Buffer[]]): { current: Buffer; all: Buffer[] } {
  return { current: keys[0], all: keys }
}
