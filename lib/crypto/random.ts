import { randomBytes } from 'node:crypto'

/** The one source of randomness in the package: `bytes` random bytes, base64url-encoded. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url')
}

export function randomBuffer(bytes: number): Buffer {
  return randomBytes(bytes)
}
