import type { Context } from '../../core/context'
import { formActionOrigins } from '../../core/sign-in/form-action'
import { renderPage } from '../../infra/http/page-response'
import type { ViewData, ViewName } from '../../infra/pages/render'

/** Renders one of the password pages with the service's texts, theme and form-action origins. */
export async function showPage<V extends ViewName>(
  ctx: Context,
  status: number,
  view: V,
  data: ViewData[V],
): Promise<void> {
  renderPage(ctx.res, status, view, data, {
    formAction: await formActionOrigins(ctx, 'other'),
    messages: ctx.messages(),
    theme: ctx.svc.config.theme,
  })
}

/** A short text field of the body (the user's name, a token), or undefined. */
export function field(ctx: Context, name: string, max: number): string | undefined {
  const value = ctx.body[name]
  return typeof value === 'string' && value.length <= max ? value : undefined
}
