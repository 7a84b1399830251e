import { createHmac } from 'node:crypto'

/**
 * The specs' own TOTP (RFC 6238, on RFC 4226's HOTP), written from the RFCs with node:crypto and no
 * line of lib/ or of otpauth, so that lib/infra/crypto/totp.ts is checked against an independent
 * reading of the standard (itself checked against RFC 6238's Appendix B in spec/crypto/totp.spec.ts).
 */

export type TotpAlgorithm = 'sha1' | 'sha256' | 'sha512'

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'

/** RFC 4648 base32 without padding to bytes (upper case only, as authenticator URIs carry it). */
export function base32Decode(text: string): Buffer {
  const bytes: number[] = []
  let value = 0
  let bits = 0
  for (const char of text) {
    const index = BASE32.indexOf(char)
    if (index === -1) throw new Error(`not base32: ${char}`)
    value = ((value << 5) | index) & 0xffff
    bits += 5
    if (bits >= 8) {
      bits -= 8
      bytes.push((value >> bits) & 0xff)
    }
  }
  return Buffer.from(bytes)
}

/** RFC 4226 §5.3: HMAC over the 8-byte big-endian counter, dynamic truncation, modulo 10^digits. */
export function hotp(key: Buffer, counter: number, digits = 6, algorithm: TotpAlgorithm = 'sha1'): string {
  const message = Buffer.alloc(8)
  message.writeBigUInt64BE(BigInt(counter))
  const mac = createHmac(algorithm, key).update(message).digest()
  const offset = mac[mac.length - 1]! & 0x0f
  const binary = mac.readUInt32BE(offset) & 0x7fffffff
  return String(binary % 10 ** digits).padStart(digits, '0')
}

export interface TotpOptions {
  readonly digits?: number
  readonly period?: number
  readonly algorithm?: TotpAlgorithm
}

/** RFC 6238 §4.2: the step T = floor(unix seconds / period), T0 = 0. */
export function totpStep(unixSeconds: number, period = 30): number {
  return Math.floor(unixSeconds / period)
}

/** The code at `unixSeconds` for `key` (raw bytes). */
export function totp(
  key: Buffer,
  unixSeconds: number,
  { digits = 6, period = 30, algorithm = 'sha1' }: TotpOptions = {},
) {
  return hotp(key, totpStep(unixSeconds, period), digits, algorithm)
}

/** The code an authenticator app shows for a base32 secret: SHA-1, 6 digits, 30 s. */
export function appCode(base32Secret: string, unixSeconds: number): string {
  return totp(base32Decode(base32Secret), unixSeconds)
}
