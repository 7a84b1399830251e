import type { Context } from './context'
import { formActionOrigins } from './sign-in/form-action'
import { renderPage } from '../infra/http/page-response'
import type { ViewData, ViewName } from '../infra/pages/render'

/** Renders a feature's built-in page with the service's texts, theme and form-action origins. */
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

/** A short text field of the body (a name, a token, a code), or undefined. */
export function field(ctx: Context, name: string, max: number): string | undefined {
  const value = ctx.body[name]
  return typeof value === 'string' && value.length <= max ? value : undefined
}
