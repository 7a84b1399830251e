import { sendJson, sendRedirect } from '../infra/http/reply'
import type { Context } from './context'

/** What a POST answers when its CSRF token is missing or wrong. Nothing else happens. */
export type CsrfFailure = (ctx: Context) => Promise<void>

export const invalidCsrf = {
  /** `POST /session`: 400 {}. */
  badRequest: async (ctx: Context) => sendJson(ctx.res, 400, '{}', true),

  /**
   * Sign-in and sign-out: back to the page with `csrf=true`; in JSON mode a 403 whose `url`
   * carries `error=MissingCSRF`, so that the client reports the failure instead of following it.
   */
  backTo(path: '/signin' | '/signout'): (ctx: Context) => Promise<void> {
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
