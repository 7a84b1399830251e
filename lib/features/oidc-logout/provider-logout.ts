import type { SessionRecord } from '../../infra/config/types'
import type { Context } from '../../core/context'
import { open, seal } from '../../infra/crypto/jwe'
import { randomToken } from '../../infra/crypto/random'
import { OVER_BUDGET } from '../../infra/http/chunked-cookie'
import { clearCookie, setCookie } from '../../infra/http/cookies'
import { outsideText } from '../../infra/logger'
import { beginFlow, checkFlow } from '../../core/sign-in/flow'
import type { LogoutRuntime } from './runtime'

/**
 * OpenID Connect RP-Initiated Logout 1.0, for oidc() providers with `logout: 'provider'`. At
 * sign-in, the ID token is kept for `id_token_hint`: in Redis under a random handle when `redis`
 * is set, else in the cookie itself when it fits. The logout cookie (`<session cookie>-logout`,
 * sealed, the session cookie's attributes) names the provider and holds the token or its handle.
 * It counts toward the Cookie budget (lib/infra/http/cookie-budget.ts) and is the first to give way: when
 * the session's cookies would leave too little, it says only that (OVER_BUDGET), and sign-out goes
 * on without id_token_hint, saying why in its log entry.
 * At sign-out, once our session has ended, the browser goes to the provider's end-session endpoint
 * with `state`: a flow (lib/core/sign-in/flow.ts) bound to the browser's CSRF token exactly like a sign-in's,
 * under the provider name `logout:<id>` so that neither kind of flow can stand for the other. The
 * provider sends the browser back to `GET /signout-callback/:provider`, which checks it.
 */

/** A sealed ID token of more than this many characters is not put in the cookie (browsers keep about 4 KB a cookie). */
const MAX_HINT_COOKIE = 3600

const flowProvider = (providerId: string) => `logout:${providerId}`

function logoutCookie(ctx: Context) {
  const def = ctx.cookieSet.sessionToken
  return { def, name: `${def.name}-logout` }
}

/** At sign-in with a `logout: 'provider'` provider: keeps the sign-in's (verified) ID token for id_token_hint. */
export async function keepLogoutHint(
  ctx: Context,
  rt: LogoutRuntime,
  providerId: string,
  idToken: unknown,
): Promise<void> {
  const { svc } = ctx
  const { def, name } = logoutCookie(ctx)
  const maxLifetime = svc.config.session.maxLifetime
  // A sign-in before this one in the same browser: its ID token is of no more use.
  const previous = open(rt.keys, ctx.cookies[name])
  if (typeof previous?.h === 'string') await rt.index.takeHint(previous.h)
  let sealed: string
  if (typeof idToken !== 'string') sealed = seal(rt.keys.current, { p: providerId })
  else if (svc.config.redis) {
    const handle = randomToken(32)
    await rt.index.keepHint(handle, idToken, maxLifetime)
    sealed = seal(rt.keys.current, { p: providerId, h: handle })
  } else {
    sealed = seal(rt.keys.current, { p: providerId, t: idToken })
    // Too long for a cookie of its own: sign-out goes on without id_token_hint (the provider then asks).
    if (sealed.length > MAX_HINT_COOKIE) sealed = seal(rt.keys.current, { p: providerId, x: 1 })
  }
  setCookie(ctx.res, def, sealed, maxLifetime, name)
}

/** Why sign-out has no id_token_hint, for its log entry (the fix: keep the ID token in Redis). */
const NO_HINT = {
  budget: 'the logout cookie that held the ID token did not fit in the Cookie budget beside the session',
  size: 'the ID token is too large for a cookie',
  absent: 'the browser sent no logout cookie',
  store: 'the store that keeps the ID token did not answer',
} as const
type NoHint = keyof typeof NO_HINT

/**
 * The ID token kept for this browser's sign-in with `providerId`, or why there is none; the
 * logout cookie is cleared.
 */
async function takeLogoutHint(
  ctx: Context,
  rt: LogoutRuntime,
  providerId: string,
): Promise<{ hint: string } | { none: NoHint }> {
  const { def, name } = logoutCookie(ctx)
  const value = ctx.cookies[name]
  if (value === undefined) return { none: 'absent' }
  clearCookie(ctx.res, def, name)
  if (value === OVER_BUDGET) return { none: 'budget' }
  const opened = open(rt.keys, value)
  if (opened?.p !== providerId) return { none: 'absent' }
  if (typeof opened.t === 'string') return { hint: opened.t }
  if (typeof opened.h !== 'string') return { none: opened.x === 1 ? 'size' : 'absent' }
  // The hint is worth less than the sign-out: a store that does not answer leaves it out.
  const kept = await rt.index.takeHint(opened.h).catch(() => undefined)
  return typeof kept === 'string' ? { hint: kept } : { none: kept === undefined ? 'store' : 'absent' }
}

/**
 * POST /signout, once our session has ended: the provider's end-session URL for a session signed
 * in with a `logout: 'provider'` provider that has one (discovered or configured), else null. The
 * logout cookie is cleared either way. `callbackUrl`: already validated.
 */
export async function providerLogoutUrl(
  ctx: Context,
  rt: LogoutRuntime,
  record: SessionRecord | null,
  callbackUrl: string,
): Promise<string | null> {
  const { svc } = ctx
  const runtime = record?.provider === undefined ? undefined : rt.registry.get(record.provider)
  const provider = runtime?.provider
  if (!runtime || provider?.protocol !== 'oidc' || provider.logout !== 'provider') {
    const { def, name } = logoutCookie(ctx)
    if (ctx.cookies[name] !== undefined) clearCookie(ctx.res, def, name)
    return null
  }
  const taken = await takeLogoutHint(ctx, rt, provider.id)
  const hint = 'hint' in taken ? taken.hint : null
  const discovered = provider.endSessionUrl === undefined ? await runtime.awaitDiscovery() : null
  const endpoint = provider.endSessionUrl ?? discovered?.oidc?.metadata.end_session_endpoint
  if (endpoint === undefined) return null
  const state = beginFlow(svc.flowKeys, ctx.flowCookies(), ctx.csrfToken(), {
    provider: flowProvider(provider.id),
    callbackUrl,
  })
  const url = new URL(endpoint)
  if (hint !== null) url.searchParams.set('id_token_hint', hint)
  url.searchParams.set('client_id', provider.clientId)
  url.searchParams.set(
    'post_logout_redirect_uri',
    ctx.serviceUrl(`/signout-callback/${encodeURIComponent(provider.id)}`),
  )
  url.searchParams.set('state', state)
  const without =
    'none' in taken
      ? `, without id_token_hint: ${NO_HINT[taken.none]}${svc.config.redis ? '' : ' (set `redis` to keep it there)'}`
      : ''
  svc.log('info', 'signout.provider', `sent to provider ${provider.id} to sign out there too${without}`, {
    ...svc.userForLog(record!.userId),
    provider: provider.id,
    idTokenHint: hint !== null,
  })
  return url.href
}

/**
 * GET /signout-callback/:provider: the provider sends the browser back after its sign-out. The
 * flow `state` names is checked (and spent); the browser goes to the callbackUrl the sign-out
 * validated, or to the error page when the state does not belong to this browser.
 */
export function finishProviderLogout(ctx: Context): void {
  const { svc } = ctx
  const csrfToken = svc.csrf.read(ctx.cookies[ctx.cookieSet.csrfToken.name])
  const flow = checkFlow(
    svc.flowKeys,
    ctx.flowCookies(),
    flowProvider(ctx.providerId ?? ''),
    ctx.param('state'),
    csrfToken,
  )
  if (!flow) {
    const named = outsideText(ctx.providerId ?? '', 64)
    svc.log(
      'warn',
      'callback.error',
      `provider ${named}: a sign-out came back without the state this browser's sign-out made`,
    )
    return ctx.redirectToError('Default')
  }
  ctx.redirect(flow.callbackUrl)
}
