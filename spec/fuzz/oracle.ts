import { splitSetCookie } from '../support/cookie-jar'
import { decodeEntities, forms } from '../support/forms'
import { headerOf, headersOf, send, type Answer, type RawRequest } from './wire'

/**
 * What every answer to every generated request must satisfy, whatever the request was: the
 * invariants of issue 13, checked from the bytes on the wire.
 */
export interface Expected {
  /**
   * The origin of the site the answer belongs to: the one of `url`; with `trustHost` and no `url`,
   * the one the request's own (forwarded) Host names, or null when that is no origin at all.
   */
  site: string | null
  /**
   * Off-site places the browser may be sent: OAuth authorization endpoints (origin and path). The
   * authorization request must then send the user back to the site (its redirect_uri).
   */
  authorizationEndpoints: readonly string[]
  /** The request was a complete, untampered sign-in: a session cookie is then the right answer. */
  signIn?: boolean
}

/** A stack frame (`at fn (/path/file.ts:1:2)`), as Node and Express's default error page print them. */
const STACK_FRAME = /(?:^|\s|&nbsp;|>)at\s[^\n<]*?(?:\(|\s)(?:\/|node:|file:\/\/)[^\s)<]*:\d+:\d+/m
const SESSION_COOKIE = /^(?:__Host-|__Secure-)?auth\.session-token(?:\.\d+)?$/
const TOKEN_COOKIE = /^(?:__Host-|__Secure-)?auth\.(?:csrf-token|session-token(?:\.\d+)?)$/
/** The arbitraries' markup markers (`<fz>`, `"fz=1`): in a page, they can only be input reflected unescaped. */
const REFLECTED = /<fz|["']fz=/

export function expectSafeAnswer(request: RawRequest, answer: Answer, expected: Expected): void {
  const fail = (why: string) => {
    throw new Error(`${why}\n  answer: ${describe(answer)}`)
  }
  // The contract's only 5xx for a request that reached a healthy service: the Configuration error page.
  if (answer.status >= 500 && !(answer.status === 500 && asksConfigurationPage(request)))
    fail(`a ${answer.status} is not an answer the contract allows here`)
  if (STACK_FRAME.test(answer.body) || answer.body.includes(process.cwd()))
    fail('the body shows a stack trace or a file path')
  const type = headerOf(answer, 'content-type') ?? ''
  if (type.includes('html') && REFLECTED.test(answer.body)) fail('the page reflects input as markup')
  const noStore = /no-store/.test(headerOf(answer, 'cache-control') ?? '')
  for (const line of headersOf(answer, 'set-cookie')) {
    const cookie = splitSetCookie(line)
    if (!cookie || !TOKEN_COOKIE.test(cookie.name) || cookie.value === '') continue
    if (cookie.attributes.some(([name, value]) => name === 'max-age' && value === '0')) continue
    // The wire contract: an answer that carries a token or a session is never cached.
    if (!noStore) fail(`a token cookie is set on an answer that may be cached: ${line.slice(0, 120)}`)
    if (SESSION_COOKIE.test(cookie.name) && !expected.signIn) fail(`a session cookie was set: ${line.slice(0, 120)}`)
  }
  if (answer.status === 200 && type.includes('json') && /^(?:csrf|session)$/.test(routeOf(request)) && !noStore)
    fail('a token or session answer may be cached')
  // docs/routes.md: every answer the package writes says nosniff, and a 405 names what is allowed.
  // Express marks every answer it made (X-Powered-By); under the base path, those are the package's.
  if (headerOf(answer, 'x-powered-by') && /^\/api\/auth(?:[/?]|$)/i.test(request.target)) {
    if (headerOf(answer, 'x-content-type-options') !== 'nosniff') fail('an answer of the package without nosniff')
    if (answer.status === 405 && !headerOf(answer, 'allow')) fail('a 405 without Allow')
  }
  for (const [where, target] of targets(answer)) {
    const problem = offSite(target, expected)
    if (problem) fail(`${where} ${JSON.stringify(target.slice(0, 300))} ${problem}`)
  }
}

/** The last segment of the request's path: the route, for a request that reached one. */
function routeOf(request: RawRequest): string {
  const path = request.target.split('?', 1)[0]!
  return path.split('/').filter(Boolean).at(-1) ?? ''
}

/** GET /error?error=Configuration (however the path is dressed): the one route documented to answer 500. */
export function asksConfigurationPage(request: RawRequest): boolean {
  if (request.method !== 'GET' && request.method !== 'HEAD') return false
  const at = request.target.indexOf('?')
  const code = at === -1 ? null : new URLSearchParams(request.target.slice(at + 1)).get('error')
  return routeOf(request) === 'error' && code === 'Configuration'
}

/** Every place the answer sends or points the browser: Location, a JSON `{url}`, the pages' form actions and links. */
function targets(answer: Answer): Array<[string, string]> {
  const found: Array<[string, string]> = headersOf(answer, 'location').map((value) => ['Location', value])
  const type = headerOf(answer, 'content-type') ?? ''
  if (type.includes('json')) found.push(...jsonUrls(parseJson(answer.body), 0))
  if (type.includes('html')) {
    for (const form of forms(answer.body)) found.push(['form action', form.action])
    for (const [, href] of answer.body.matchAll(/\shref="([^"]*)"/g)) found.push(['link', decodeEntities(href!)])
  }
  return found
}

/** `url` (a JSON redirect) and the URLs of /providers (`signinUrl`, `callbackUrl`), at any depth up to 3. */
function jsonUrls(value: unknown, depth: number): Array<[string, string]> {
  if (typeof value !== 'object' || value === null || depth > 3) return []
  return Object.entries(value).flatMap(([key, field]): Array<[string, string]> =>
    /^(?:url|signinUrl|callbackUrl)$/.test(key)
      ? [[`JSON ${key}`, typeof field === 'string' ? field : JSON.stringify(field)]]
      : jsonUrls(field, depth + 1),
  )
}

/** Why `target` leaves the site, or null when it does not. */
function offSite(target: string, expected: Expected): string | null {
  const site = expected.site ?? 'http://no-site.invalid'
  let url: URL
  try {
    url = new URL(target, `${site}/api/auth/`)
  } catch {
    return 'does not parse as a URL'
  }
  if (url.origin === site) return null
  if (!expected.authorizationEndpoints.includes(`${url.origin}${url.pathname}`))
    return `leaves the site ${expected.site ?? '(none: the request named no valid host)'}`
  // The one off-site place: the provider, which must send the user back to this site's callback.
  const back = url.searchParams.getAll('redirect_uri')
  if (back.length !== 1 || !back[0]!.startsWith(`${site}/api/auth/callback/`))
    return `sends the provider's answer elsewhere (redirect_uri ${JSON.stringify(back)})`
  return null
}

/**
 * The process lives and still serves an ordinary browser: GET /csrf answers 200 with a token.
 * `headers` are those a normal request to this service needs (a Host, for `trustHost`).
 */
export async function expectAlive(port: number, headers: ReadonlyArray<readonly [string, string]>): Promise<void> {
  const answer = await send(port, { method: 'GET', target: '/api/auth/csrf', headers })
  const token = answer.status === 200 ? parseJson(answer.body)?.csrfToken : undefined
  if (typeof token !== 'string' || token === '')
    throw new Error(`the service no longer answers GET /csrf: ${describe(answer)}`)
}

/**
 * Errors nobody handled, collected while a spec runs: a rejection or exception that escaped the
 * service would crash a production process even though the request itself got an answer.
 */
export function watchProcess(): { expectQuiet: () => void } {
  const escaped: unknown[] = []
  const onEscape = (reason: unknown) => escaped.push(reason)
  beforeAll(() => {
    process.on('unhandledRejection', onEscape)
    process.on('uncaughtException', onEscape)
  })
  afterAll(() => {
    process.off('unhandledRejection', onEscape)
    process.off('uncaughtException', onEscape)
  })
  return {
    expectQuiet: () => {
      if (escaped.length > 0) throw new Error(`an error escaped the service: ${String(escaped.splice(0)[0])}`)
    },
  }
}

export function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text)
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}

function describe(answer: Answer): string {
  const headers = answer.headers.map(([name, value]) => `${name}: ${value.slice(0, 200)}`).join(' | ')
  return `${answer.status} | ${headers} | ${JSON.stringify(answer.body.slice(0, 400))}`
}
