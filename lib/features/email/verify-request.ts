import { sendRedirect } from '../../infra/http/reply'
import { renderPage } from '../../infra/http/page-response'
import type { Context } from '../../core/context'

/** GET /verify-request: "check your e-mail", shown after a sign-in link was sent. */
export async function verifyRequest(ctx: Context): Promise<void> {
  const { pages } = ctx.svc.config
  if (pages.verifyRequest) return sendRedirect(ctx.res, ctx.pageUrl(pages.verifyRequest))
  renderPage(
    ctx.res,
    200,
    'verify-request',
    { base: ctx.base.href },
    { messages: ctx.messages(), theme: ctx.svc.config.theme },
  )
}
