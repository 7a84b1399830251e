import { createHash, createHmac, timingSafeEqual } from 'node:crypto'
import type { KeyRing } from './keys'

/**
 * HMAC-SHA256 over one or more parts, base64url. Parts are length-prefixed so that
 * ("ab", "c") and ("a", "bc") never share a MAC.
 */
export function mac(key: Buffer, ...parts: string[]): string {
  const hmac = createHmac('sha256', key)
  for (const part of parts) hmac.update(`${part.length}:`).update(part)
  return hmac.digest('base64url')
}

/** Constant-time string comparison. Only the length can differ observably, and lengths are public. */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  if (left.length !== right.length) {
    timingSafeEqual(left, left)
    return false
  }
  return timingSafeEqual(left, right)
}

/** True when `candidate` is the MAC of `parts` under any key of the ring (rotation). */
export function verifyMac(ring: KeyRing, candidate: string, ...parts: string[]): boolean {
  let ok = false
  for (const key of ring.all) ok = safeEqual(mac(key, ...parts), candidate) || ok
  return ok
}

/**
 * A plain SHA-256 of a value, base64url: a store key for a random token (whose hash is useless
 * without the token) or for a user id (stable across secret rotations, which a keyed hash is not).
 */
export function digest(value: string): string {
  return createHash('sha256').update(value).digest('base64url')
}
