import type { Context } from '../../core/context'
import { AuthError } from '../../infra/errors'
import { sendJson, sendRedirect } from '../../infra/http/reply'
import type { PasswordRuntime } from './runtime'

/**
 * NextAuth's answer to a refused credentials sign-in, the same for an unknown identifier, a wrong
 * password and an account that is slowed down: `401 {"url": "{base}/error?error=CredentialsSignin&provider=…"}`
 * to a client that asked for JSON (the v5 client, which sends `X-Auth-Return-Redirect`, also gets
 * `code=credentials`), else a 302 there (the error route sends the browser to the sign-in page).
 */
export function credentialsRefused(ctx: Context, runtime: PasswordRuntime, userId: string | null): void {
  // The audit record names the user whose password was wrong (never who was asked about, for an unknown identifier).
  ctx.audit({ event: 'signin', userId, provider: runtime.provider.id, failure: 'CredentialsSignin' })
  const query: Record<string, string> = { error: 'CredentialsSignin', provider: runtime.provider.id }
  if (ctx.req.headers['x-auth-return-redirect'] !== undefined) query.code = 'credentials'
  const url = ctx.serviceUrl('/error', query)
  if (ctx.jsonMode) sendJson(ctx.res, 401, JSON.stringify({ url }), true)
  else sendRedirect(ctx.res, url)
}

/**
 * Every hashing slot is taken and the queue is full: 429 with Retry-After, whoever the request is
 * about (the answer says nothing of an account). The router renders it (JSON or the error page).
 */
export function hashingBusy(ctx: Context): never {
  ctx.svc.log('warn', 'password.busy', 'a password request was refused: every hashing slot and queue place was taken')
  ctx.res.setHeader('Retry-After', '1')
  throw new AuthError('TooManyRequests', 'too many password requests at once')
}
