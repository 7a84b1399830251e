import type { Context } from '../../core/context'
import type { Feature, FeatureDefinition } from '../../core/feature'
import { sendJson } from '../../infra/http/reply'
import { issueToken } from './issue'
import { resolveAccessTokens } from './options'
import { accessTokensRuntime, endMarks } from './runtime'

/** `resource` and a CSRF token: a few hundred bytes. */
const TOKEN_BODY = 4 * 1024

/**
 * Access tokens for APIs (`accessTokens`, docs/access-tokens.md): `POST {base}/token` issues an RFC
 * 9068 JWT to a signed-in browser, `GET {base}/jwks` publishes the keys that verify it, and every end
 * of a session is marked where `requireAccessToken` (lib/resource/) sees it. Without the option it
 * adds nothing.
 */
export const accessTokens: FeatureDefinition = {
  name: 'access-tokens',
  options: ['accessTokens'],
  check(config) {
    resolveAccessTokens(config)
  },
  build(env) {
    const options = resolveAccessTokens(env.config)
    if (options === null) return { name: 'access-tokens' }
    const runtime = accessTokensRuntime(env, options)
    const jwks = JSON.stringify({ keys: options.keys.map(({ publicJwk }) => publicJwk) })
    const feature: Feature = {
      name: 'access-tokens',
      routes: {
        token: {
          POST: (ctx) => issueToken(ctx, runtime),
          // A page on one of `cors.origins` asks too: the single-page app of an API on another origin.
          cors: 'POST',
          csrf: async (ctx: Context) => sendJson(ctx.res, 403, JSON.stringify({ error: 'MissingCSRF' }), true),
          // Not counted against requestRateLimit: a page asks again every few minutes for each of its
          // users, many of them behind one address; a token costs a signature and a read, as /session.
          bodyLimit: TOKEN_BODY,
        },
        // Public keys, for anyone: an API's server fetches them, so no request is another site's.
        jwks: {
          GET: async (ctx) => {
            ctx.res.setHeader('Cache-Control', 'public, max-age=300')
            sendJson(ctx.res, 200, jwks)
          },
          crossSite: 'none',
        },
      },
      ...endMarks(env, runtime),
    }
    return feature
  },
}
