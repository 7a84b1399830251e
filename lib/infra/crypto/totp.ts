import { Secret, TOTP } from 'otpauth'
import { randomBuffer } from './random'

/**
 * TOTP (RFC 6238) as authenticator apps make it: HMAC-SHA-1, 6 digits, 30-second steps, through
 * `otpauth`. Each code is matched for the step before, at and after now (a phone's clock a little
 * off, a code typed as it turned over), and the step it matched is answered, so that the caller can
 * spend it once (the store keeps the last step spent: a code, or an earlier one, never twice).
 */
const DIGITS = 6
const PERIOD = 30
const ALGORITHM = 'SHA1'

/** A new secret: 20 random bytes (160 bits, RFC 4226's recommendation), in base32 for the app. */
export function newTotpSecret(): string {
  return new Secret({ buffer: new Uint8Array(randomBuffer(20)).buffer }).base32
}

/** The `otpauth://totp/…` URI an authenticator app reads from the QR code. */
export function totpUri({ secret, issuer, account }: { secret: string; issuer: string; account: string }): string {
  return new TOTP({
    issuer,
    label: account,
    secret: Secret.fromBase32(secret),
    digits: DIGITS,
    period: PERIOD,
    algorithm: ALGORITHM,
  }).toString()
}

/**
 * The step (`floor(ms / 30 000)`) whose code `code` is, among the one before now, now and the one
 * after; null for anything else: a wrong code, or input that is not six ASCII digits (letters,
 * other scripts' digits, spaces inside, a long string) is never handed to the HMAC.
 */
export function matchTotp(secret: string, code: unknown, nowMs: number): number | null {
  if (typeof code !== 'string') return null
  const token = code.trim()
  if (token.length !== DIGITS || !/^\d{6}$/.test(token)) return null
  let delta: number | null
  try {
    const totp = new TOTP({ secret: Secret.fromBase32(secret), digits: DIGITS, period: PERIOD, algorithm: ALGORITHM })
    delta = totp.validate({ token, timestamp: nowMs, window: 1 })
  } catch {
    return null
  }
  return delta === null ? null : Math.floor(nowMs / 1000 / PERIOD) + delta
}
