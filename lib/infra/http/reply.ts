import type { Response } from 'express'

/** Responses that carry a token or a session must never be cached anywhere. */
export const NO_STORE = 'private, no-cache, no-store'

/**
 * Every response the package writes says `nosniff`: a browser never reads one of our answers (a
 * JSON body with a reflected value, say) as a script or a page of another type.
 */
export function noSniff(res: Response): void {
  res.setHeader('X-Content-Type-Options', 'nosniff')
}

/** JSON written straight to Node's response: the same on Express 4 and 5, and cheap. */
export function sendJson(res: Response, status: number, body: string, noStore = false): void {
  sendText(res, status, 'application/json; charset=utf-8', body, noStore)
}

export function sendHtml(res: Response, status: number, html: string, noStore = false): void {
  sendText(res, status, 'text/html; charset=utf-8', html, noStore)
}

function sendText(res: Response, status: number, type: string, body: string, noStore: boolean): void {
  res.statusCode = status
  noSniff(res)
  res.setHeader('Content-Type', type)
  if (noStore) res.setHeader('Cache-Control', NO_STORE)
  res.setHeader('Content-Length', Buffer.byteLength(body))
  res.end(body)
}

export function sendEmpty(res: Response, status: number, headers: Record<string, string> = {}): void {
  res.statusCode = status
  noSniff(res)
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value)
  res.setHeader('Content-Length', 0)
  res.end()
}

/** A 302. Never cached: redirects here often set or clear a session or CSRF cookie. */
export function sendRedirect(res: Response, location: string): void {
  res.statusCode = 302
  noSniff(res)
  res.setHeader('Location', location)
  res.setHeader('Cache-Control', NO_STORE)
  res.setHeader('Content-Length', 0)
  res.end()
}
