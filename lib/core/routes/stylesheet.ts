import { sendStylesheet } from '../../infra/http/page-response'
import type { Context } from '../context'

/**
 * GET /assets/style.css: the built-in pages' only stylesheet (no inline styles: CSP-ready), with
 * `theme.brandColor` and `theme.buttonText` after it, built once at `auth()`.
 */
export async function stylesheet(ctx: Context): Promise<void> {
  sendStylesheet(ctx.res, ctx.svc.config.theme.stylesheet)
}
