import type { Response } from 'express'
import { escapeHtml, sendHtml } from './reply'

/** Messages shown for each error code; the raw `error` value is never echoed. */
const ERROR_MESSAGES: Record<string, string> = {
  Configuration: 'There is a problem with the server configuration. Check the server logs for more information.',
  AccessDenied: 'You do not have permission to sign in.',
  Verification: 'The sign-in link is no longer valid. It may have been used already or it may have expired.',
  Default: 'Something went wrong. Please try again.',
}

/** The error page. A placeholder until the EJS views land. */
export function renderErrorPage(res: Response, status: number, code: string): void {
  const message = ERROR_MESSAGES[code] ?? ERROR_MESSAGES.Default!
  sendHtml(res, status, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Error</title></head><body><h1>Error</h1><p>${escapeHtml(message)}</p></body></html>`)
}
