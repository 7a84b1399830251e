import { AuthError } from '../infra/errors'
import { sendJson, sendRedirect } from '../infra/http/reply'
import type { Context } from './context'

/** What a POST answers when its CSRF token is missing or wrong. Nothing else happens. */
export type CsrfFailure = (ctx: Context) => Promise<void>

export const invalidCsrf = {
  /** The error MissingCSRF (its page, or `{"url"}` in JSON mode): a route exempt from the token refusing another site. */
  missing: async (_ctx: Context): Promise<void> => {
    throw new AuthError('MissingCSRF', 'a POST from another site was refused')
  },

  /** `POST /session`: 400 {}. */
  badRequest: async (ctx: Context) => sendJson(ctx.res, 400, '{}', true),

  /**
   * Sign-in, sign-out and a feature's form pages: back to the page (`path` under the base) with
   * `csrf=true`, where a new token waits; in JSON mode a 403 whose `url` carries
   * `error=MissingCSRF`, so that the client reports the failure instead of following it.
   */
  backTo(path: string): (ctx: Context) => Promise<void> {
    return async (ctx) => {
      if (ctx.jsonMode)
        sendJson(
          ctx.res,
          403,
          JSON.stringify({ url: ctx.serviceUrl(path, { csrf: 'true', error: 'MissingCSRF' }) }),
          true,
        )
      else sendRedirect(ctx.res, ctx.serviceUrl(path, { csrf: 'true' }))
    }
  },
}
