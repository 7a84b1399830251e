import { createCipheriv, createDecipheriv } from 'node:crypto'
import { parseJsonObject } from '../util/json'
import { decodeBase64url } from './base64url'
import { randomBuffer } from './random'
import type { KeyRing } from './keys'

// Compact JWE with `alg: dir` and `enc: A256GCM` (RFC 7516), written on node:crypto directly:
// the session hot path opens one of these per request, and WebCrypto's per-call overhead is
// measurable there. Tokens are interchangeable with the `jose` library (see spec/crypto).

const HEADER = Buffer.from(JSON.stringify({ alg: 'dir', enc: 'A256GCM' })).toString('base64url')
/** Longer than any session we would write (chunks are joined before opening). */
const MAX_TOKEN_LENGTH = 64 * 1024

export function seal(key: Buffer, payload: object): string {
  const iv = randomBuffer(12)
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  cipher.setAAD(Buffer.from(HEADER, 'ascii'))
  const ciphertext = Buffer.concat([cipher.update(JSON.stringify(payload), 'utf8'), cipher.final()])
  const tag = cipher.getAuthTag()
  return `${HEADER}..${iv.toString('base64url')}.${ciphertext.toString('base64url')}.${tag.toString('base64url')}`
}

/**
 * The payload object, or null for anything that does not open: wrong shape, wrong header, wrong
 * key, tampered bytes, or parts in any spelling but canonical base64url (so that one session has
 * one cookie string). Every failure looks the same to the caller.
 */
export function open(ring: KeyRing, token: unknown): Record<string, unknown> | null {
  if (typeof token !== 'string' || token.length > MAX_TOKEN_LENGTH) return null
  const parts = token.split('.')
  if (parts.length !== 5) return null
  const [header, encryptedKey, iv, ciphertext, tag] = parts as [string, string, string, string, string]
  if (encryptedKey !== '' || (header !== HEADER && !isDirA256Gcm(header))) return null
  const ivBytes = decodeBase64url(iv)
  const tagBytes = decodeBase64url(tag)
  const cipherBytes = decodeBase64url(ciphertext)
  if (ivBytes?.length !== 12 || tagBytes?.length !== 16 || cipherBytes === null) return null
  const aad = Buffer.from(header, 'ascii')
  for (const key of ring.all) {
    const plaintext = decrypt(key, ivBytes, cipherBytes, tagBytes, aad)
    if (plaintext !== null) return parseJsonObject(plaintext)
  }
  return null
}

function decrypt(key: Buffer, iv: Buffer, ciphertext: Buffer, tag: Buffer, aad: Buffer): string | null {
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, iv)
    decipher.setAAD(aad)
    decipher.setAuthTag(tag)
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8')
  } catch {
    return null
  }
}

/** A header written by another JWE library: the same algorithms, nothing we do not understand. */
function isDirA256Gcm(header: string): boolean {
  const bytes = decodeBase64url(header)
  const parsed = bytes && parseJsonObject(bytes.toString('utf8'))
  if (!parsed || parsed.alg !== 'dir' || parsed.enc !== 'A256GCM') return false
  return Object.keys(parsed).every(
    (name) => name === 'alg' || name === 'enc' || name === 'typ' || name === 'cty' || name === 'kid',
  )
}
