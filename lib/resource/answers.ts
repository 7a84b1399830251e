import type { Response } from 'express'
import { AAL_ACR } from '../infra/assurance-acr'
import { sendJson } from '../infra/http/reply'

/**
 * What `requireAccessToken()` answers when it does not let a request through (RFC 6750 §3, RFC
 * 9470): always JSON, never cached, with a `WWW-Authenticate: Bearer …` challenge.
 * - no bearer token: 401, `Bearer` alone (no error code: the client sent no credentials), `{}`;
 * - an Authorization header that is no bearer token: 400 `invalid_request`;
 * - a token that is not valid here: 401 `invalid_token`, the description telling expiry and an
 *   ended session apart from everything else (which all looks the same: no oracle);
 * - a valid token that proved too little: 401 `insufficient_user_authentication` with `max_age` and
 *   `acr_values`, as the service's `requireAuth()` answers;
 * - no key set yet, or Redis not answering: 503 `temporarily_unavailable` with `Retry-After`.
 */

/** Seconds a client is asked to wait after a 503. */
export const RETRY_AFTER = 5

export function missingToken(res: Response): void {
  res.setHeader('WWW-Authenticate', 'Bearer')
  sendJson(res, 401, '{}', true)
}

export function invalidRequest(res: Response): void {
  const description = 'the Authorization header must be `Bearer <token>`'
  res.setHeader('WWW-Authenticate', `Bearer error="invalid_request", error_description="${description}"`)
  sendJson(res, 400, JSON.stringify({ error: 'invalid_request', error_description: description }), true)
}

export function invalidToken(res: Response, description: string): void {
  res.setHeader('WWW-Authenticate', `Bearer error="invalid_token", error_description="${description}"`)
  sendJson(res, 401, JSON.stringify({ error: 'invalid_token', error_description: description }), true)
}

export function unavailable(res: Response): void {
  res.setHeader('Retry-After', String(RETRY_AFTER))
  sendJson(res, 503, '{"error":"temporarily_unavailable"}', true)
}

/** The step-up answer, built once per middleware: its header and body depend on the options alone. */
export function stepUpAnswer(maxAge: number | null, aal: 1 | 2 | null): (res: Response) => void {
  const params = [
    'error="insufficient_user_authentication"',
    'error_description="A more recent or stronger authentication is required"',
    ...(maxAge !== null ? [`max_age=${maxAge}`] : []),
    ...(aal !== null ? [`acr_values="${AAL_ACR[aal]}"`] : []),
  ]
  const header = `Bearer ${params.join(', ')}`
  const body = JSON.stringify({
    error: 'insufficient_user_authentication',
    ...(maxAge !== null ? { maxAge } : {}),
    ...(aal !== null ? { aal } : {}),
  })
  return (res) => {
    res.setHeader('WWW-Authenticate', header)
    sendJson(res, 401, body, true)
  }
}

export type Bearer =
  { readonly kind: 'none' } | { readonly kind: 'malformed' } | { readonly kind: 'token'; readonly token: string }

const NONE: Bearer = Object.freeze({ kind: 'none' })
const MALFORMED: Bearer = Object.freeze({ kind: 'malformed' })
/** RFC 6750's b64token, in linear time (`=` is not in the first class). */
const B64TOKEN = /^[\w.~+/-]+=*$/
/** Longer than any token `decodeJws` reads. */
const MAX_HEADER = 16_500

/**
 * The bearer token of an Authorization header: the scheme in any case, then one token. Another
 * scheme (`Basic …`) is no bearer token at all (`none`); `Bearer` with no token, two, or one with
 * characters no token has, is `malformed`. Tokens in the query or the body are never read.
 */
export function bearerOf(header: unknown): Bearer {
  if (typeof header !== 'string' || header === '') return NONE
  if (header.length > MAX_HEADER) return MALFORMED
  const space = header.indexOf(' ')
  const scheme = space === -1 ? header : header.slice(0, space)
  if (scheme.toLowerCase() !== 'bearer') return NONE
  const token = space === -1 ? '' : header.slice(space + 1).trimStart()
  return B64TOKEN.test(token) ? { kind: 'token', token } : MALFORMED
}
