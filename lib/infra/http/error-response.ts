import type { Request, Response } from 'express'
import type { AuthError } from '../errors'
import { sendJson } from './reply'
import { renderErrorPage } from './page-response'
import type { Languages } from '../pages/languages'
import type { Messages } from '../pages/messages'
import type { RenderOptions } from '../pages/render'

/** True when the client prefers JSON to HTML by its Accept header. */
export function prefersJson(req: Request): boolean {
  const accept = req.headers.accept
  if (!accept) return false
  return accept.includes('json') && !accept.includes('text/html')
}

export interface ErrorAnswer {
  /** The service URL: the error page then links to the sign-in page and has its stylesheet. */
  readonly base?: string | undefined
  readonly headers?: Readonly<Record<string, string>>
  /** The language's texts for the error page. Default: English. */
  readonly messages?: Messages
  /** `theme`'s colour scheme and logo. Default: the reader's scheme, no logo. */
  readonly theme?: RenderOptions['theme']
}

/** How an error page is answered: linked to the sign-in page under `base`, in the request's language and `theme`. */
export function errorAnswer(
  languages: Languages,
  base: string | undefined,
  req: Request,
  res: Response,
  theme?: RenderOptions['theme'],
): ErrorAnswer {
  if (languages.negotiated) res.vary('Accept-Language')
  return { base, messages: languages.pick(req.headers['accept-language']), ...(theme && { theme }) }
}

/** The answer to one of our errors: JSON `{ "error": code }` or the error page, by Accept. */
export function sendError(req: Request, res: Response, error: AuthError, answer: ErrorAnswer = {}): void {
  const { base, headers = {}, messages, theme } = answer
  if (res.headersSent) return
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value)
  // A body we refused (too large, too slow, of another type, for no route) is not drained for
  // ever: the connection closes after the answer.
  if (!req.complete) res.setHeader('Connection', 'close')
  if (prefersJson(req)) sendJson(res, error.status, JSON.stringify({ error: error.code }))
  else renderErrorPage(res, error.status, error.code, base, messages, theme)
}
