import { sendRedirect } from '../../infra/http/reply'
import { renderErrorPage } from '../../infra/http/page-response'
import type { Context } from '../context'
import { SIGNIN_PAGE_CODES } from '../../infra/errors'

const SHOWN_ON_SIGNIN: ReadonlySet<string> = new Set(SIGNIN_PAGE_CODES)

// A Map: `?error=constructor` must find nothing here, not Object's constructor.
const STATUS: ReadonlyMap<string, number> = new Map([
  ['Configuration', 500],
  ['AccessDenied', 403],
  ['Verification', 403],
  ['LastSignInMethod', 409],
])

/** GET /error?error=<Code>: the app's error page, the sign-in page, or the built-in error page. */
export async function errorPage(ctx: Context): Promise<void> {
  const { pages } = ctx.svc.config
  if (pages.error) return sendRedirect(ctx.res, ctx.pageUrl(pages.error))
  const code = ctx.query.get('error') ?? 'Default'
  if (SHOWN_ON_SIGNIN.has(code)) return sendRedirect(ctx.res, ctx.serviceUrl('/signin', { error: code }))
  const status = STATUS.get(code)
  renderErrorPage(
    ctx.res,
    status ?? 200,
    status === undefined ? 'Default' : code,
    ctx.base.href,
    ctx.messages(),
    ctx.svc.config.theme,
  )
}
