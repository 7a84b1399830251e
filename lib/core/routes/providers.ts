import { sendJson } from '../../infra/http/reply'
import type { Context } from '../context'

/** GET /providers: every configured provider with its absolute sign-in and callback URLs. */
export function providersJson(ctx: Context): void {
  sendJson(ctx.res, 200, ctx.svc.providersJson(ctx.base))
}
