import type { Jwk } from '../infra/crypto/jws'
import { isRecord } from '../infra/util/object'

/**
 * The auth service's public keys, as its JWKS document lists them, kept in memory. Fetched on the
 * first request (never at start: an API that starts before the service is up starts all the same),
 * with a deadline and a size cap; fetched again in the background once they are FRESH_MS old (a key
 * the service withdrew stops being trusted), and when a token names a key not in the set, at most
 * once every REFETCH_MS (so that made-up `kid`s cannot make the API hammer the service). One fetch
 * at a time, shared by every request waiting for it; a request waits for it at most WAIT_MS, while
 * the fetch carries on. A fetch that fails keeps the keys held. Nothing here ever rejects.
 */
export interface KeySet {
  /** The keys held now, or null when none was ever obtained. */
  current(): readonly Jwk[] | null
  /** Whether a key with this `kid` is held. */
  has(kid: string): boolean
  /**
   * Fetches the set again unless it was fetched (or tried) too recently, and answers whether a
   * fetch (this one, or one under way) brought keys within WAIT_MS; false at once when none may start.
   */
  refresh(): Promise<boolean>
}

/** How long a request waits for the key set: an answer within it, or a refusal, never a hung request. */
export const WAIT_MS = 3000
/** The whole exchange with the service (headers and body). */
const FETCH_TIMEOUT_MS = 5000
/** A key set is a few keys: a larger answer is refused rather than held. */
const MAX_BYTES = 64 * 1024
/** An unknown `kid` fetches the set again at most this often. */
export const REFETCH_MS = 30_000
/** Without any key yet, a failed fetch is tried again at most this often. */
const RETRY_MS = 1000
/** Keys older than this are fetched again in the background (the old ones serve meanwhile). */
const FRESH_MS = 5 * 60_000

export function keySet(uri: string, now: () => number = () => performance.now()): KeySet {
  let keys: readonly Jwk[] | null = null
  let kids: ReadonlySet<string> = new Set()
  let fetchedAt = 0
  /** When the last fetch started, successful or not. */
  let triedAt = -Infinity
  let inFlight: Promise<boolean> | null = null

  function start(): Promise<boolean> | null {
    if (inFlight) return inFlight
    const since = now() - triedAt
    if (since < (keys === null ? RETRY_MS : REFETCH_MS)) return null
    triedAt = now()
    inFlight = fetchKeys(uri).then((found) => {
      inFlight = null
      if (found === null) return false
      keys = found
      kids = new Set(found.flatMap((key) => (typeof key.kid === 'string' ? [key.kid] : [])))
      fetchedAt = now()
      return true
    })
    return inFlight
  }

  return Object.freeze({
    current() {
      if (keys !== null && now() - fetchedAt > FRESH_MS) void start()
      return keys
    },
    has: (kid: string) => kids.has(kid),
    refresh() {
      const fetching = start()
      return fetching === null ? Promise.resolve(false) : within(fetching, WAIT_MS)
    },
  })
}

/** The fetch's answer, or false once `ms` have passed (the fetch goes on). Never rejects. */
function within(work: Promise<boolean>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms)
    timer.unref()
  })
  return Promise.race([work, late]).finally(() => clearTimeout(timer))
}

/** The keys of the JWKS at `uri`, or null when it cannot be had (no answer in time, not a key set). Never rejects. */
async function fetchKeys(uri: string): Promise<Jwk[] | null> {
  try {
    const signal = AbortSignal.timeout(FETCH_TIMEOUT_MS)
    const res = await fetch(uri, { signal, headers: { accept: 'application/json' }, redirect: 'error' })
    if (res.status !== 200) {
      await res.body?.cancel()
      return null
    }
    const text = await readCapped(res)
    if (text === null) return null
    const body = JSON.parse(text) as unknown
    if (!isRecord(body) || !Array.isArray(body.keys)) return null
    // Public signing keys only: a symmetric key (`oct`) or one for encryption is never used to verify.
    return body.keys.filter(
      (key): key is Jwk =>
        isRecord(key) &&
        typeof key.kty === 'string' &&
        key.kty !== 'oct' &&
        (key.use === undefined || key.use === 'sig') &&
        typeof key.alg === 'string',
    )
  } catch {
    return null
  }
}

/** The body as text, or null past MAX_BYTES (counted as it streams in, so an endless answer is cut off). */
async function readCapped(res: Response): Promise<string | null> {
  if (!res.body) return ''
  const chunks: Uint8Array[] = []
  let size = 0
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.length
    // Leaving the loop cancels the stream.
    if (size > MAX_BYTES) return null
    chunks.push(chunk)
  }
  return Buffer.concat(chunks).toString('utf8')
}
