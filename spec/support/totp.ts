import { createHmac } from 'node:crypto'

/**
 * The specs' own RFC 6238 (TOTP over RFC 4226's HOTP), written from the RFCs with node:crypto and
 * nothing of the package's: the second factor's specs compute codes with it, as an authenticator
 * app would. Checked against RFC 6238 Appendix B in spec/crypto/totp.spec.ts.
 */
export function totpCode(
  secret: Buffer,
  atMs: number,
  { digits = 6, period = 30, algorithm = 'sha1' }: { digits?: number; period?: number; algorithm?: string } = {},
): string {
  const counter = Buffer.alloc(8)
  counter.writeBigUInt64BE(BigInt(Math.floor(atMs / 1000 / period)))
  const mac = createHmac(algorithm, secret).update(counter).digest()
  // RFC 4226 §5.3: dynamic truncation.
  const offset = mac[mac.length - 1]! & 0x0f
  const binary = (mac.readUInt32BE(offset) & 0x7fffffff) % 10 ** digits
  return binary.toString().padStart(digits, '0')
}

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'

/** RFC 4648 base32, as the setup answers a secret (padding and spaces ignored). */
export function fromBase32(text: string): Buffer {
  let bits = 0
  let value = 0
  const bytes: number[] = []
  for (const char of text.replace(/[\s=]/g, '').toUpperCase()) {
    const index = BASE32.indexOf(char)
    if (index < 0) throw new Error(`not base32: ${char}`)
    value = (value << 5) | index
    bits += 5
    if (bits >= 8) {
      bytes.push((value >>> (bits - 8)) & 0xff)
      bits -= 8
    }
  }
  return Buffer.from(bytes)
}
