import { otpauth } from '../util/lazy'
import { safeEqual } from './mac'
import { randomBuffer } from './random'

/**
 * Authenticator-app codes (TOTP, RFC 6238) with the parameters every app honours when it reads a QR
 * code: HMAC-SHA1, 6 digits, 30-second steps. Google Authenticator ignores any other `algorithm`,
 * `digits` or `period` and would show codes that never match, so none of them is an option.
 * `otpauth` (its Node build, on node:crypto) computes the codes and writes the URI; which steps are
 * tried, the checks of the input and the comparison are done here.
 */

const DIGITS = 6
const PERIOD_SECONDS = 30
/** 160 bits: the length RFC 4226 §4 recommends (128 at least), which every app accepts. */
const SECRET_BYTES = 20
/** A secret as newTotpSecret writes it (32 characters), with room for other lengths an app imported. */
const SECRET = /^[A-Z2-7]{16,128}$/
/** Six ASCII digits (`\d` in JavaScript is [0-9] only, never another script's digits). */
const CODE = /^\d{6}$/

/** A new shared secret, base32 (RFC 4648, upper case, no padding): what the QR code and manual entry carry. */
export function newTotpSecret(): string {
  const { Secret } = otpauth()
  // A copy: the Secret takes the ArrayBuffer whole, which must hold exactly these bytes.
  return new Secret({ buffer: new Uint8Array(randomBuffer(SECRET_BYTES)).buffer }).base32
}

export interface TotpUriInput {
  /** From newTotpSecret. */
  readonly secret: string
  /** The service's name, which the app shows above the code. */
  readonly issuer: string
  /** Whose code it is (an e-mail address, a user name), shown beside the issuer. */
  readonly account: string
}

/**
 * The Key URI (`otpauth://totp/Issuer:account?secret=…&issuer=…&algorithm=SHA1&digits=6&period=30`)
 * that the QR code carries. The issuer goes in the label and in the parameter, as Google's Key URI
 * format asks, so that old and new apps both group the code under it. Lone surrogates in a name (which
 * `encodeURIComponent` throws on) become U+FFFD. A secret that newTotpSecret did not write is a
 * programming error, and throws.
 */
export function totpUri({ secret, issuer, account }: TotpUriInput): string {
  if (!SECRET.test(secret)) throw new TypeError('totpUri: the secret is not base32 from newTotpSecret()')
  const { TOTP, Secret } = otpauth()
  return new TOTP({
    issuer: wellFormed(issuer),
    label: wellFormed(account),
    secret: Secret.fromBase32(secret),
    algorithm: 'SHA1',
    digits: DIGITS,
    period: PERIOD_SECONDS,
  }).toString()
}

/**
 * The step (a count of 30-second periods since 1970) whose code `code` is, among the step of `nowMs`
 * and the one on each side (RFC 6238 §5.2: one step of clock drift or typing delay), or null. The
 * caller spends the step (a code works once) and accepts only a step above every one spent before.
 * Anything but exactly six ASCII digits is null before any HMAC, never an exception: letters, other
 * scripts' digits, spaces, an array from a parser, undefined. All three codes are computed and
 * compared in constant time whatever matches; were two of them the same (one chance in a million),
 * the later step is answered, so that the code cannot be spent a second time at it.
 */
export function matchTotp(secret: string, code: unknown, nowMs: number): number | null {
  if (typeof code !== 'string' || code.length !== DIGITS || !CODE.test(code)) return null
  if (typeof secret !== 'string' || !SECRET.test(secret) || !Number.isFinite(nowMs) || nowMs < 0) return null
  const { HOTP, Secret } = otpauth()
  const key = Secret.fromBase32(secret)
  const now = Math.floor(nowMs / 1000 / PERIOD_SECONDS)
  let matched: number | null = null
  for (const step of [now - 1, now, now + 1]) {
    if (step < 0) continue
    const expected = HOTP.generate({ secret: key, algorithm: 'SHA1', digits: DIGITS, counter: step })
    if (safeEqual(expected, code)) matched = step
  }
  return matched
}

/** The text with each lone surrogate replaced by U+FFFD, as its UTF-8 round trip does. */
function wellFormed(text: string): string {
  return Buffer.from(text, 'utf8').toString('utf8')
}
