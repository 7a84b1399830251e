import type { Context } from '../../core/context'
import { AAL_ACR } from '../../core/require-auth'
import { aalOf, revocableSince, toRecordView } from '../../core/session/record'
import type { SessionRecord } from '../../infra/config/types'
import { randomToken } from '../../infra/crypto/random'
import { signJwt } from '../../infra/crypto/signing-keys'
import { sendJson } from '../../infra/http/reply'
import { errorText } from '../../infra/logger'
import type { AccessTokensRuntime } from './runtime'

/** The claims the service sets itself: the app's `claims` cannot replace them. */
const RESERVED = new Set([
  'iss',
  'sub',
  'aud',
  'exp',
  'nbf',
  'iat',
  'jti',
  'client_id',
  'sid',
  'auth_time',
  'amr',
  'acr',
  'scope',
  'cnf',
  'act',
  'may_act',
  'typ',
])
/** The most a token's JSON may grow by the app's claims: a header has to carry it. */
const MAX_CLAIMS_BYTES = 4096

const refuse = (ctx: Context, status: number, error: string) =>
  sendJson(ctx.res, status, JSON.stringify({ error }), true)

/**
 * `POST {base}/token` (CSRF token and origin checked by the router): a signed-in browser's access
 * token for one of `audiences` (`resource`, RFC 8707; default the first), `{ access_token,
 * token_type, expires_in }`, never cached.
 */
export async function issueToken(ctx: Context, runtime: AccessTokensRuntime): Promise<void> {
  const { options, revocations } = runtime
  const asked = ctx.body.resource
  const resource = asked === undefined ? options.audiences[0]! : asked
  if (typeof resource !== 'string' || !options.audiences.includes(resource)) return refuse(ctx, 400, 'invalid_target')
  const transport = ctx.sessionCookie()
  const record = await ctx.svc.sessions.read(transport)
  if (record === null) return refuse(ctx, 401, 'SessionRequired')
  // Dated by the revocations' clock before the session is judged afresh: a revocation made after
  // this moment is later than the token's `iat`, and an API refuses the token for it.
  const issuedAt = await revocations.stamp(record.userId)
  if (revocableSince(record) < (await revocations.before(record.userId, true))) {
    ctx.svc.sessions.clear(transport)
    return refuse(ctx, 401, 'SessionRequired')
  }
  const token = transport.token()
  const handle = token === null ? null : runtime.handleOf(token, record)
  const sid = handle ?? runtime.cookieSid(record)
  const extra = await appClaims(ctx, runtime, record, handle, resource)
  if (extra === null) return refuse(ctx, 500, 'server_error')
  const claims = {
    ...extra,
    iss: options.issuer,
    sub: record.userId,
    aud: resource,
    client_id: clientOf(ctx),
    iat: issuedAt,
    exp: issuedAt + options.maxAge,
    jti: randomToken(16),
    sid,
    auth_time: record.authTime ?? record.createdAt,
    ...(record.amr && record.amr.length > 0 ? { amr: record.amr } : {}),
    ...(record.amr ? { acr: AAL_ACR[aalOf(record.amr)] } : {}),
  }
  const accessToken = signJwt(options.keys[0]!, 'at+jwt', claims)
  ctx.svc.log('info', 'access_token.issued', 'an access token was issued', {
    audience: resource,
    ...ctx.svc.userForLog(record.userId),
  })
  ctx.res.setHeader('Pragma', 'no-cache')
  sendJson(
    ctx.res,
    200,
    JSON.stringify({ access_token: accessToken, token_type: 'Bearer', expires_in: options.maxAge }),
    true,
  )
}

/** The app's claims, reserved names left out; null when its callback failed (no token then). */
async function appClaims(
  ctx: Context,
  runtime: AccessTokensRuntime,
  record: SessionRecord,
  handle: string | null,
  resource: string,
): Promise<Record<string, unknown> | null> {
  const { claims } = runtime.options
  if (!claims) return {}
  // The app's answer is read inside the try too: a getter that throws, a BigInt, a cycle.
  let json: string | undefined
  try {
    const given: unknown = await claims({ record: toRecordView(record, handle), resource })
    if (typeof given !== 'object' || given === null || Array.isArray(given)) {
      ctx.svc.log('error', 'access_token.claims', 'accessTokens.claims must answer a plain object of claims')
      return null
    }
    // No prototype: a claim named `__proto__` stays a claim, as JSON has it.
    const kept = Object.create(null) as Record<string, unknown>
    for (const [name, value] of Object.entries(given)) {
      if (RESERVED.has(name)) runtime.warnReserved(name)
      else kept[name] = value
    }
    json = JSON.stringify(kept)
  } catch (error) {
    ctx.svc.log('error', 'access_token.claims', `accessTokens.claims failed: ${errorText(error)}`)
    return null
  }
  if (json === undefined || Buffer.byteLength(json) > MAX_CLAIMS_BYTES) {
    ctx.svc.log(
      'error',
      'access_token.claims',
      `accessTokens.claims must answer JSON of at most ${MAX_CLAIMS_BYTES} bytes`,
    )
    return null
  }
  return JSON.parse(json) as Record<string, unknown>
}

/**
 * `client_id`: the page that asked, by its origin when that is the service's own or one of
 * `cors.origins`; else (no Origin header, or a page of the same site that no option lists, which
 * the router lets through and which cannot read the answer) the service's own origin.
 */
function clientOf(ctx: Context): string {
  const origin = ctx.req.headers.origin
  const own = ctx.base.origin
  if (typeof origin !== 'string' || origin === own) return own
  return ctx.svc.config.cors?.origins.has(origin) ? origin : own
}
