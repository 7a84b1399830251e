import { sha1Hex } from '../../infra/crypto/digest'
import { ConfigurationError } from '../../infra/errors'
import { errorText, type Log } from '../../infra/logger'
import { parseHttpUrl } from '../../infra/urls/http-url'
import { isRecord } from '../../infra/util/object'
import { checkKeys, describe, optionalMilliseconds } from '../../infra/util/options'

// Whether a password is among those known from breaches, by the k-anonymity range API of Have I
// Been Pwned's Pwned Passwords (or a mirror speaking it): only the first 5 hex digits of the
// password's SHA-1 leave the service, and the answer lists every known suffix under that prefix.
// `Add-Padding: true` has the API fill each answer with lines of count 0 to 800..1000 lines, so
// that its size does not tell an observer of the (encrypted) traffic which prefix was asked.

/** `password({ breached })` resolved. */
export interface BreachedOptions {
  /** The range API, ending in "/": `{url}{5 hex digits}` is asked. */
  readonly url: string
  /** Milliseconds the whole call may take: connection, headers and body. */
  readonly timeout: number
  /** Without a usable answer: 'allow' passes the password (with a warning), 'refuse' gives `unverifiable`. */
  readonly onUnavailable: 'allow' | 'refuse'
}

export const BREACHED_DEFAULTS: BreachedOptions = Object.freeze({
  url: 'https://api.pwnedpasswords.com/range/',
  timeout: 2000,
  onUnavailable: 'allow',
})

/** A padded answer is some 1,000 lines of 40 bytes; anything near this is not the range API. */
const MAX_ANSWER_BYTES = 1024 * 1024
/** One line of an answer (its CR, if any, taken off): a 35-digit suffix and its count. */
const LINE = /^[\dA-F]{35}:\d{1,10}$/i
/** A system error code (ECONNREFUSED, ENOTFOUND …): worth logging; any other text from outside is not. */
const ERROR_CODE = /^[A-Z][\dA-Z_]{0,31}$/

/** `{ url, timeout, onUnavailable }`, false (no check) or absent (the defaults); `where` names the option in errors. */
export function resolveBreached(value: unknown, where: string): BreachedOptions | null {
  if (value === false) return null
  if (value === undefined) return BREACHED_DEFAULTS
  if (!isRecord(value))
    throw new ConfigurationError(
      `\`${where}\` must be false or an object such as { onUnavailable: 'refuse' }; got ${describe(value)}`,
    )
  checkKeys(value, ['url', 'timeout', 'onUnavailable'], `${where}.`)
  return Object.freeze({
    url: urlOf(value.url, `${where}.url`),
    timeout: optionalMilliseconds(value.timeout, `${where}.timeout`, BREACHED_DEFAULTS.timeout),
    onUnavailable: onUnavailableOf(value.onUnavailable, `${where}.onUnavailable`),
  })
}

function urlOf(value: unknown, option: string): string {
  if (value === undefined) return BREACHED_DEFAULTS.url
  const example = `'${BREACHED_DEFAULTS.url}'`
  const url = parseHttpUrl(value)
  if (!url)
    throw new ConfigurationError(
      `\`${option}\` must be an absolute http(s) URL of a range API, such as ${example}; got ${describe(value)}`,
    )
  if (url.username !== '' || url.password !== '')
    throw new ConfigurationError(`\`${option}\` must have no user name or password; got ${url.host}`)
  if (url.search !== '' || url.hash !== '')
    throw new ConfigurationError(
      `\`${option}\` must have no query or fragment: the 5-digit prefix is appended to its path, such as ${example}`,
    )
  if (!url.href.endsWith('/'))
    throw new ConfigurationError(
      `\`${option}\` must end with "/", as the 5-digit prefix is appended to it: such as ${example}; got ${describe(value)}`,
    )
  return url.href
}

function onUnavailableOf(value: unknown, option: string): BreachedOptions['onUnavailable'] {
  if (value === undefined) return BREACHED_DEFAULTS.onUnavailable
  if (value === 'allow' || value === 'refuse') return value
  throw new ConfigurationError(`\`${option}\` must be 'allow' or 'refuse'; got ${describe(value)}`)
}

/**
 * The check: 'breached' when the API lists the password (`password` already NFKC-normalised) with a
 * count above 0; null when it does not, or when it gave no usable answer and `onUnavailable` is
 * 'allow' (then with a warning); 'unverifiable' in that case with 'refuse'. Never throws.
 */
export function breachedCheck(
  options: BreachedOptions,
  log: Log,
): (password: string) => Promise<'breached' | 'unverifiable' | null> {
  const host = new URL(options.url).host
  return async (password) => {
    const hash = sha1Hex(password)
    const answer = await lookUp(options, hash.slice(0, 5), hash.slice(5))
    if (answer.ok) return answer.count > 0 ? 'breached' : null
    const allow = options.onUnavailable === 'allow'
    log(
      'warn',
      'password.breach_check_unavailable',
      `The breached-password check failed: ${host} ${answer.why}; the password was ${allow ? 'allowed' : 'refused as unverifiable'} (breached.onUnavailable: '${options.onUnavailable}')`,
      { host, onUnavailable: options.onUnavailable },
    )
    return allow ? null : 'unverifiable'
  }
}

/** Why no usable answer came, for the log: never a part of the password, its hash or the prefix. */
type Unavailable = { readonly ok: false; readonly why: string }
type RangeAnswer = { readonly ok: true; readonly count: number } | Unavailable

/** The count the API gives `suffix` under `prefix` (0: not listed), within the deadline for the whole call. */
async function lookUp(options: BreachedOptions, prefix: string, suffix: string): Promise<RangeAnswer> {
  const deadline = new AbortController()
  const timer = setTimeout(() => deadline.abort(), options.timeout)
  try {
    const body = await get(`${options.url}${prefix}`, deadline.signal)
    return body.ok ? countIn(body.text, suffix) : body
  } catch (error) {
    if (deadline.signal.aborted) return { ok: false, why: `gave no complete answer within ${options.timeout} ms` }
    return { ok: false, why: `could not be reached (${failure(error)})` }
  } finally {
    clearTimeout(timer)
  }
}

/** The body of a 200 answer, read up to MAX_ANSWER_BYTES (decompressed, counted as it streams in). */
async function get(
  url: string,
  signal: AbortSignal,
): Promise<{ readonly ok: true; readonly text: string } | Unavailable> {
  // No redirects: the range API answers where it was asked, and a redirect would take the prefix elsewhere.
  const res = await fetch(url, { signal, redirect: 'error', headers: { 'Add-Padding': 'true' } })
  if (res.status !== 200) {
    await res.body?.cancel().catch(() => {})
    return { ok: false, why: `answered ${res.status}` }
  }
  if (!res.body) return { ok: true, text: '' }
  const chunks: Uint8Array[] = []
  let size = 0
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.length
    // Leaving the loop cancels the stream: the rest is never read.
    if (size > MAX_ANSWER_BYTES) return { ok: false, why: `answered more than ${MAX_ANSWER_BYTES} bytes` }
    chunks.push(chunk)
  }
  return { ok: true, text: Buffer.concat(chunks).toString('latin1') }
}

/** `suffix`'s count in an answer of `SUFFIX:COUNT` lines (CRLF or LF); one line of any other shape spoils it. */
function countIn(text: string, suffix: string): RangeAnswer {
  let count = 0
  for (const raw of text.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw
    if (line === '') continue
    if (!LINE.test(line)) return { ok: false, why: 'answered a malformed line (not SUFFIX:COUNT)' }
    // Padding lines carry a count of 0, and may carry the very suffix asked for.
    if (line.slice(0, 35).toUpperCase() === suffix) count = Math.max(count, Number(line.slice(36)))
  }
  return { ok: true, count }
}

/** Why fetch() failed: the system's code where it gives one (in `cause`), else the error's own text, shortened. */
function failure(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown } } | null)?.cause
  if (typeof cause?.code === 'string' && ERROR_CODE.test(cause.code)) return cause.code
  return errorText(cause ?? error)
}
