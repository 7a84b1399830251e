import { randomBytes } from 'node:crypto'
import { splitSetCookie, type CookieJar } from '../support/cookie-jar'
import { idpLogin } from '../support/idp-login'
import { linkInText } from '../support/smtp'
import type { FuzzService } from './services'
import { headerOf, headersOf, send, type Answer } from './wire'

/**
 * Real material for the fuzz to break: a valid CSRF pair, a live OAuth flow, a live e-mail link,
 * a live session. Random bytes alone stop at the first check (a CSRF MAC, a flow cookie, a token
 * lookup); mutating the real thing one part at a time gets each case past every check but one,
 * which is where a defect would hide. Everything goes over the wire, as a browser gets it.
 */
export interface CookiePair {
  name: string
  value: string
}

export interface CsrfPair {
  cookie: CookiePair
  token: string
}

type Headers = ReadonlyArray<readonly [string, string]>

/** The live (not cleared) cookies an answer sets. */
export function cookiesSet(answer: Answer): CookiePair[] {
  return headersOf(answer, 'set-cookie')
    .map((line) => splitSetCookie(line))
    .filter((cookie) => cookie !== undefined && cookie.value !== '')
    .map((cookie) => ({ name: cookie!.name, value: cookie!.value }))
}

export function cookieLine(pairs: readonly CookiePair[]): string {
  return pairs.map(({ name, value }) => `${name}=${value}`).join('; ')
}

/**
 * GET /csrf as a browser does; `headers` are the request's own (its Host and forwarded
 * headers, for the trustHost service, where they decide the cookie's name). Null when the service
 * does not give one to such a request (a refused Host).
 */
export async function csrfPair(svc: FuzzService, headers?: Headers): Promise<CsrfPair | null> {
  const answer = await send(svc.port, {
    method: 'GET',
    target: '/api/auth/csrf',
    headers: headers ?? [['Host', svc.host]],
  })
  if (answer.status !== 200) return null
  const token = (JSON.parse(answer.body) as { csrfToken: string }).csrfToken
  const cookie = cookiesSet(answer).find(({ name }) => name.endsWith('auth.csrf-token'))
  return cookie ? { cookie, token } : null
}

function form(fields: Record<string, string>): { body: Buffer; type: readonly [string, string] } {
  return {
    body: Buffer.from(new URLSearchParams(fields).toString()),
    type: ['Content-Type', 'application/x-www-form-urlencoded'],
  }
}

async function post(svc: FuzzService, path: string, fields: Record<string, string>, csrf: CsrfPair) {
  const { body, type } = form({ ...fields, csrfToken: csrf.token })
  const headers = [['Host', svc.host], type, ['Cookie', cookieLine([csrf.cookie])]] as const
  return send(svc.port, { method: 'POST', target: `/api/auth/${path}`, headers, body })
}

/** A mailbox nobody else uses, so that its mail is found among the ones the fuzz itself asks for. */
export function freshAddress(): string {
  return `fuzz-${randomBytes(6).toString('hex')}@example.com`
}

/** A live sign-in link for a fresh address, as mailed: token, email and the callbackUrl it was asked with. */
export async function emailLink(svc: FuzzService, callbackUrl: string): Promise<URL> {
  const address = freshAddress()
  const csrf = await csrfPair(svc)
  const answer = await post(svc, 'signin/email', { email: address, callbackUrl }, csrf!)
  if (!headerOf(answer, 'location')?.includes('/verify-request'))
    throw new Error(`no link was sent: ${answer.status} ${headerOf(answer, 'location')}`)
  for (let waited = 0; waited < 5000; waited += 5) {
    const mail = svc.smtp!.messages().find((message) => message.envelope.to.includes(address))
    if (mail) return linkInText(mail.text, `${svc.origin}/api/auth`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  throw new Error(`no mail reached ${address}`)
}

/** The cookies of a live session: an e-mail sign-in done to the end. */
export async function liveSession(svc: FuzzService): Promise<CookiePair[]> {
  const link = await emailLink(svc, '/')
  const csrf = await csrfPair(svc)
  const answer = await post(svc, 'callback/email', Object.fromEntries(link.searchParams), csrf!)
  const session = cookiesSet(answer).filter(({ name }) => name.startsWith('auth.session-token'))
  if (session.length === 0) throw new Error(`the sign-in made no session: ${answer.status}`)
  return session
}

export interface LiveFlow {
  csrf: CsrfPair
  /** The sealed flow cookie the sign-in POST set. */
  flow: CookiePair
  /** Where the service sent the browser: the IdP's authorization request. */
  authorization: URL
}

/** POST /signin/<provider> with a valid CSRF pair: a flow in progress, bound to this browser. */
export async function liveFlow(svc: FuzzService, provider: string, callbackUrl: string) {
  const csrf = await csrfPair(svc)
  const answer = await post(svc, `signin/${provider}`, { callbackUrl }, csrf!)
  const flow = cookiesSet(answer).find(({ name }) => name.startsWith('auth.flow.'))
  const location = headerOf(answer, 'location')
  if (!flow || !location) throw new Error(`the sign-in did not start: ${answer.status} ${location}`)
  return { csrf: csrf!, flow, authorization: new URL(location) } satisfies LiveFlow
}

/** The IdP's answer to a flow (alice signs in): the callback URL with `code`, `state` and `iss`. */
export function providerAnswer(flow: LiveFlow, jar: CookieJar): Promise<URL> {
  return idpLogin(flow.authorization, { jar, login: 'alice' })
}
