import { ConfigurationError } from '../../infra/errors'
import { sha1Hex } from '../../infra/crypto/mac'
import type { Log } from '../../infra/logger'
import { parseHttpUrl } from '../../infra/urls/http-url'
import { isRecord } from '../../infra/util/object'
import { checkKeys, describe } from '../../infra/util/options'

/**
 * Whether a password is known breached, through a k-anonymity range API (Have I Been Pwned's
 * protocol): only the first 5 hex digits of the password's SHA-1 leave the server; the service
 * answers every suffix it knows under that prefix (`SUFFIX:COUNT` lines), padded with lines of
 * count 0 (`Add-Padding: true`) so that the answer's size says nothing either. Tests point `url`
 * at a local server speaking the protocol (spec/support/pwned-range.ts).
 */
export interface BreachedOptions {
  /** The range endpoint; the prefix is appended. Default `https://api.pwnedpasswords.com/range/`. */
  readonly url: string
  /** Milliseconds for the whole call: connection, headers and body. Default 2000. */
  readonly timeout: number
  /** When the service cannot answer in time: `'allow'` the password (default, logged) or `'refuse'` it (`unverifiable`). */
  readonly onUnavailable: 'allow' | 'refuse'
}

export const RANGE_API = 'https://api.pwnedpasswords.com/range/'
/** A real answer is about 40 KB (800 to 1000 lines with padding); anything far larger is not one. */
const MAX_BODY = 1024 * 1024

/** `password().breached` resolved; a mistake throws naming the option and the fix. */
export function resolveBreached(value: unknown, where: string): BreachedOptions {
  if (!isRecord(value))
    throw new ConfigurationError(
      `\`${where}\` must be false or { url, timeout, onUnavailable }; got ${describe(value)}`,
    )
  checkKeys(value, ['url', 'timeout', 'onUnavailable'], `${where}.`)
  const url = value.url ?? RANGE_API
  if (typeof url !== 'string' || parseHttpUrl(url) === null || url.includes('?') || url.includes('#'))
    throw new ConfigurationError(
      `\`${where}.url\` must be an http(s) URL to which the 5-digit prefix is appended, such as '${RANGE_API}'; got ${describe(url)}`,
    )
  const timeout = value.timeout ?? 2000
  if (typeof timeout !== 'number' || !Number.isInteger(timeout) || timeout < 50 || timeout > 30_000)
    throw new ConfigurationError(
      `\`${where}.timeout\` must be milliseconds from 50 to 30000 (default 2000); got ${describe(timeout)}`,
    )
  const onUnavailable = value.onUnavailable ?? 'allow'
  if (onUnavailable !== 'allow' && onUnavailable !== 'refuse')
    throw new ConfigurationError(
      `\`${where}.onUnavailable\` must be 'allow' or 'refuse'; got ${describe(onUnavailable)}`,
    )
  return Object.freeze({ url, timeout, onUnavailable })
}

/** `true`: breached; `false`: not among the known; `null`: the service did not answer usably in time. */
export async function isBreached(options: BreachedOptions, password: string, log?: Log): Promise<boolean | null> {
  const hash = sha1Hex(password)
  const prefix = hash.slice(0, 5)
  const suffix = hash.slice(5)
  try {
    const res = await fetch(`${options.url}${prefix}`, {
      headers: { 'Add-Padding': 'true', 'User-Agent': 'express-auth-service' },
      redirect: 'error',
      signal: AbortSignal.timeout(options.timeout),
    })
    if (res.status !== 200) {
      await res.body?.cancel().catch(() => undefined)
      return unavailable(log, `it answered ${res.status}`)
    }
    const body = await readCapped(res)
    if (body === null) return unavailable(log, 'its answer was too large')
    return findSuffix(body, suffix) ?? unavailable(log, 'its answer was not a range')
  } catch (error) {
    const timedOut = (error as { name?: unknown } | null)?.name === 'TimeoutError'
    return unavailable(log, timedOut ? `no answer within ${options.timeout} ms` : 'it could not be reached')
  }
}

function unavailable(log: Log | undefined, why: string): null {
  log?.('warn', 'password.breach_check_unavailable', `the breached-password check did not answer: ${why}`)
  return null
}

/** The body as text, or null past MAX_BODY (the deadline's signal ends a slow one). */
async function readCapped(res: Response): Promise<string | null> {
  const reader = (res.body as ReadableStream<Uint8Array> | null)?.getReader()
  if (!reader) return ''
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > MAX_BODY) {
      await reader.cancel().catch(() => undefined)
      return null
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks).toString('utf8')
}

/**
 * Whether `suffix` is among the lines with a count above 0 (padding lines have 0); null when the
 * body has no well-formed line at all. Split on line ends and ':' only: no regex over the body.
 */
function findSuffix(body: string, suffix: string): boolean | null {
  let wellFormed = 0
  for (const raw of body.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw
    const colon = line.indexOf(':')
    if (colon !== 35) continue
    const count = Number(line.slice(colon + 1))
    if (!Number.isInteger(count) || count < 0) continue
    wellFormed++
    if (count > 0 && line.slice(0, colon).toUpperCase() === suffix) return true
  }
  return wellFormed > 0 ? false : null
}
