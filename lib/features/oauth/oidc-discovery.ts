import { UNOBSERVED, type ProviderProbe } from './observed'
import { errorText } from '../../infra/logger'
import type { Jwk } from '../../infra/crypto/jws'
import { describe } from '../../infra/util/options'
import { parseHttpUrl } from '../../infra/urls/http-url'
import { isRecord } from '../../infra/util/object'
import type { OidcProvider } from './types'

/** What discovery gives (only the fields used here). */
export interface OidcMetadata {
  readonly issuer: string
  readonly authorization_endpoint: string
  readonly token_endpoint: string
  readonly userinfo_endpoint?: string
  readonly jwks_uri: string
  readonly authorization_response_iss_parameter_supported?: boolean
  /** OpenID Connect RP-Initiated Logout: where a `logout: 'provider'` sign-out sends the browser. */
  readonly end_session_endpoint?: string
}

/** Discovery documents and key sets are small; a larger answer is refused. */
const MAX_ANSWER_BYTES = 1024 * 1024

/**
 * A JSON object from a provider, within `timeoutMs` for the whole exchange (headers and body) and
 * MAX_ANSWER_BYTES of (decompressed) body, counted as it streams in: a huge or endless answer, or a
 * compression bomb, is cut off instead of being held in memory.
 */
async function getJson(url: string, timeoutMs: number): Promise<Record<string, unknown>> {
  let res: Response
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), headers: { accept: 'application/json' } })
  } catch (error) {
    throw new Unreachable(`${new URL(url).host} ${unreachable(error, timeoutMs)}`, error)
  }
  if (!res.ok) {
    await res.body?.cancel()
    // A server error or a rate limit is an outage; any other status answers for another address.
    if (res.status >= 500 || res.status === 429) throw new Unreachable(`${url} answered ${res.status}`)
    throw new Error(`${url} answered ${res.status}`)
  }
  const body = parseJson(await readCapped(res, url, timeoutMs), url)
  if (!isRecord(body)) throw new Error(`${url} did not answer a JSON object`)
  return body
}

/** A body that is no JSON at all (a proxy's or a server's error page) is an outage, not an answer. */
function parseJson(text: string, url: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch (error) {
    throw new Unreachable(`${url} did not answer JSON: ${errorText(error)}`, error)
  }
}

/**
 * The provider could not be asked (no connection, no answer in time, a server error, a page that
 * is no JSON): an outage, tried again later. Every other failure is an answer that is not what was
 * asked for, which no retry changes: a wrong address or issuer in the configuration.
 */
export class Unreachable extends Error {
  override name = 'Unreachable'
  constructor(message: string, cause?: unknown) {
    super(message, { cause })
  }
}

/**
 * Why fetch() failed, as an operator can act on it: undici's bare "fetch failed" keeps the system's
 * code (ECONNREFUSED, ENOTFOUND, …) in `cause` (or in the causes of an AggregateError). Codes of
 * the usual shape only: no free text from outside.
 */
function unreachable(error: unknown, timeoutMs: number): string {
  const { name, cause } = (error ?? {}) as { name?: unknown; cause?: { code?: unknown; errors?: unknown } }
  if (name === 'TimeoutError') return `gave no answer within ${timeoutMs} ms (timeout)`
  const first: unknown = Array.isArray(cause?.errors)
    ? (cause.errors[0] as { code?: unknown } | undefined)?.code
    : undefined
  const code = cause?.code ?? first
  return `could not be reached (${typeof code === 'string' && /^[A-Z][A-Z0-9_]{0,31}$/.test(code) ? code : 'fetch failed'})`
}

async function readCapped(res: Response, url: string, timeoutMs: number): Promise<string> {
  if (!res.body) return ''
  const chunks: Uint8Array[] = []
  let size = 0
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      size += chunk.length
      if (size > MAX_ANSWER_BYTES) break
      chunks.push(chunk)
    }
  } catch (error) {
    throw new Unreachable(`${new URL(url).host} ${unreachable(error, timeoutMs)}`, error)
  }
  if (size > MAX_ANSWER_BYTES) {
    await res.body.cancel().catch(() => {})
    // A broken or hostile server rather than a wrong address: tried again later, like an outage.
    throw new Unreachable(`${url} answered more than ${MAX_ANSWER_BYTES} bytes`)
  }
  return Buffer.concat(chunks).toString('utf8')
}

/** Fetches and checks `{issuer}/.well-known/openid-configuration`. */
export async function discover(provider: OidcProvider, timeoutMs: number): Promise<OidcMetadata> {
  const doc = await getJson(`${provider.issuer.replace(/\/$/, '')}/.well-known/openid-configuration`, timeoutMs)
  if (doc.issuer !== provider.issuer)
    throw new Error(`discovery names the issuer ${JSON.stringify(doc.issuer)}, not ${JSON.stringify(provider.issuer)}`)
  const secure = parseHttpUrl(provider.issuer)?.protocol === 'https:'
  for (const field of ['authorization_endpoint', 'token_endpoint', 'jwks_uri'] as const) {
    if (doc[field] === undefined) throw new Error(`discovery has no ${field}`)
    checkEndpoint(doc[field], field, secure)
  }
  if (doc.userinfo_endpoint !== undefined) checkEndpoint(doc.userinfo_endpoint, 'userinfo_endpoint', secure)
  // Only sign-out uses it: one that is no usable URL is left out (sign-out then stays local), and sign-in goes on.
  const endSession = parseHttpUrl(doc.end_session_endpoint)
  if (doc.end_session_endpoint !== undefined && (!endSession || (secure && endSession.protocol !== 'https:')))
    return Object.freeze({ ...doc, end_session_endpoint: undefined } as unknown as OidcMetadata)
  return Object.freeze(doc as unknown as OidcMetadata)
}

/**
 * An endpoint the service will call or send the user to: an absolute http(s) URL (node-oauth would
 * send any other scheme over plain http, and throw, out of any promise, on a URL that is not a
 * string), and https whenever the issuer is, so that a document cannot send the client secret,
 * a code or an access token in clear text when the app configured an https issuer.
 */
function checkEndpoint(value: unknown, field: string, secure: boolean): void {
  const url = parseHttpUrl(value)
  if (!url) throw new Error(`discovery's ${field} is not an absolute http(s) URL: ${describe(value)}`)
  if (secure && url.protocol !== 'https:')
    throw new Error(`discovery's ${field} is plain http, but the issuer is https: ${describe(value)}`)
}

export const JWKS_REFRESH_INTERVAL_MS = 30_000

/** The issuer's signing keys: fetched once, and again (once) when a token names a key we do not have. */
export type JwksCache = ReturnType<typeof jwksCache>

export function jwksCache(uri: string, timeoutMs: number, probe: ProviderProbe = UNOBSERVED) {
  // The last set fetched, and a fetch under way. While one is under way, or after one failed (an
  // outage, perhaps when a made-up kid asked for it), tokens are verified with the set we have.
  let fetched: Promise<Jwk[]> | null = null
  let loading: Promise<Jwk[]> | null = null
  let loadedAt = -Infinity
  const load = () => {
    loadedAt = Date.now()
    const attempt = probe('jwks', () => getJson(uri, timeoutMs)).then((doc) =>
      Array.isArray(doc.keys) ? (doc.keys as unknown[]).filter(isKey) : [],
    )
    loading = attempt
    // Unless a newer fetch has replaced it: kept when it succeeds, forgotten when it fails (the next token tries again).
    attempt.then(
      () => {
        if (loading === attempt) [fetched, loading] = [attempt, null]
      },
      () => {
        if (loading === attempt) loading = null
      },
    )
    return attempt
  }
  const lately = () => Date.now() - loadedAt < JWKS_REFRESH_INTERVAL_MS
  return {
    current: () => fetched ?? loading ?? load(),
    /** For a token whose kid the set does not have: the keys fetched again, now. */
    refresh: load,
    /**
     * `refresh`, at most once per JWKS_REFRESH_INTERVAL_MS: for a route anyone can post tokens to
     * (back-channel logout), so that made-up key ids cannot make the service fetch the keys again
     * and again.
     */
    refreshSeldom: () => (lately() ? (loading ?? fetched ?? failedLately()) : load()),
    /** `current`, for the same route: a fetch that failed is not tried again within JWKS_REFRESH_INTERVAL_MS either. */
    currentSeldom: () => fetched ?? loading ?? (lately() ? failedLately() : load()),
  }
}

const failedLately = (): Promise<Jwk[]> =>
  Promise.reject(new Error(`the last fetch failed less than ${JWKS_REFRESH_INTERVAL_MS / 1000} s ago`))

function isKey(value: unknown): value is Jwk {
  return isRecord(value) && typeof value.kty === 'string'
}
