import { sendJson } from '../../infra/http/reply'
import type { Context } from '../context'

/** GET /csrf: the token of the browser's valid CSRF cookie, or a new one with its cookie. */
export function csrfTokenJson(ctx: Context): void {
  const token = ctx.csrfToken()
  sendJson(ctx.res, 200, JSON.stringify({ csrfToken: token }), true)
}
