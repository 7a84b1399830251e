import { createHash } from 'node:crypto'

/** A content fingerprint (SHA-256, base64url) for cache validators; not a security use. */
export function contentDigest(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('base64url')
}
