import type { Request, Response } from 'express'
import type { AuthError } from '../errors'
import { sendJson } from './reply'
import { renderErrorPage } from './page-response'

/** True when the client prefers JSON to HTML by its Accept header. */
export function prefersJson(req: Request): boolean {
  const accept = req.headers.accept
  if (!accept) return false
  return accept.includes('json') && !accept.includes('text/html')
}

/** The answer to one of our errors: JSON `{ "error": code }` or the error page, by Accept. `base` links the page to the sign-in page. */
export function sendError(
  req: Request,
  res: Response,
  error: AuthError,
  base?: string,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) return
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value)
  // A body we refused (too large, too slow, of another type, for no route) is not drained for
  // ever: the connection closes after the answer.
  if (!req.complete) res.setHeader('Connection', 'close')
  if (prefersJson(req)) sendJson(res, error.status, JSON.stringify({ error: error.code }))
  else renderErrorPage(res, error.status, error.code, base)
}
