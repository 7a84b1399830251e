import type { Context } from '../../core/context'
import { isAuthError } from '../../infra/errors'
import { outsideText } from '../../infra/logger'
import { readBody } from '../../infra/http/body'
import { sendJson } from '../../infra/http/reply'
import { endProviderSession } from './backchannel'
import type { LogoutRuntime } from './runtime'

/**
 * A form body with one logout token (at most 16 KB, what lib/infra/crypto/jws.ts decodes) and its field name.
 * The route's policy leaves the body to this handler (./index.ts).
 */
export const BACKCHANNEL_BODY_LIMIT = 16 * 1024 + 64

const FORM = 'application/x-www-form-urlencoded'

/**
 * POST /backchannel-logout/:provider (OpenID Connect Back-Channel Logout 1.0): the provider's
 * server posts a `logout_token`. No cookies, no CSRF token: the route's policy exempts it from both
 * checks (./index.ts), and the token's signature is what authorizes it (docs/security.md). The answer is 200
 * when the sessions it names ended, else 400 with an OAuth error body, whatever was sent: never a
 * 5xx, never cached (§2.8 answers a failed logout with 400; one that failed on our side did not
 * spend the token, so the provider's retry completes it). GET (and any body that is not a small
 * form) gets the 400 too.
 */
export async function backchannelLogout(ctx: Context, rt: LogoutRuntime): Promise<void> {
  const { svc } = ctx
  const providerId = ctx.providerId ?? ''
  // From the URL: shortened, control characters replaced, before any log entry carries it.
  const named = outsideText(providerId, 64)
  const refuse = (description: string, reason: string, retry = false) => {
    // A failure on our side may come after some sessions ended; the rest end when the same token comes again.
    const ended = retry ? 'the logout token was not spent: the provider may send it again' : 'nothing was ended'
    svc.log('warn', 'backchannel_logout.refused', `provider ${named}: ${reason}; ${ended}`, { provider: named })
    sendJson(ctx.res, 400, JSON.stringify({ error: 'invalid_request', error_description: description }), true)
  }
  if (ctx.req.method !== 'POST') return refuse('a logout token is posted as a form', 'a GET was refused')
  const type = (ctx.req.headers['content-type'] ?? '').split(';', 1)[0]!.trim().toLowerCase()
  if (type !== FORM) return refuse('a logout token is posted as a form', 'the body is not a form')
  let body: Record<string, unknown>
  try {
    body = await readBody(ctx.req, Math.min(BACKCHANNEL_BODY_LIMIT, svc.config.bodyLimit), svc.config.bodyTimeout)
  } catch (error) {
    return refuse('a logout token is posted as a form', isAuthError(error) ? error.message : 'unreadable body')
  }
  const runtime = rt.registry.get(providerId)
  if (!runtime) return refuse('no such provider', 'no such provider')
  const outcome = await endProviderSession(ctx, rt, runtime, body.logout_token)
  // One description for every refused token: no oracle of which check failed (the log says which).
  if (!outcome.ok && outcome.retry)
    return refuse('the logout failed; send it again', `the logout failed: ${outcome.reason}`, true)
  if (!outcome.ok) return refuse('the logout token was refused', `the logout token was refused: ${outcome.reason}`)
  const { userIds, everywhere, ended, count: total } = outcome
  svc.log(
    'info',
    'backchannel_logout',
    `provider ${providerId} ended ${total === null ? 'every session' : `${total} session(s)`} of ${userIds.length} user(s)`,
    { provider: providerId, users: userIds.length, sessions: total },
  )
  for (const userId of everywhere)
    svc.log('info', 'signout.everywhere', 'signed out of every session by the provider', {
      ...svc.userForLog(userId),
      provider: providerId,
    })
  for (const [userId, count] of ended)
    svc.log('info', 'signout', 'signed out by the provider of the sessions its session signed in', {
      ...svc.userForLog(userId),
      provider: providerId,
      sessions: count,
    })
  // One record per user: the request is the provider's server, its address and user agent the record's.
  for (const userId of userIds) ctx.audit({ event: 'logout.backchannel', userId, provider: providerId, handle: null })
  await ctx.emit('backchannelLogout', svc.config.events.backchannelLogout, {
    provider: providerId,
    userIds: [...userIds],
    sessions: total,
  })
  sendJson(ctx.res, 200, '{}', true)
}
