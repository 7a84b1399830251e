// A system is measured only once its reply is right: status, body shape, and the cookies it sets.
// The same check runs again after the last round (a session that expired or was revoked mid-run
// would otherwise be measured as a fast "signed out").
const { ADDRESS } = require('../servers/listen')
const { cookiePairs } = require('./sessions')

const isObject = (value) => typeof value === 'object' && value !== null && !Array.isArray(value)

const SHAPES = {
  /** A signed-in user: the bench's address and an expiry. */
  user: (body) =>
    isObject(body) && isObject(body.user) && body.user.email === ADDRESS && typeof body.expires === 'string',
  /** No session: `{}` (NextAuth v4 convention) or `null` (Auth.js v5). */
  'signed-out': (body) => body === null || (isObject(body) && Object.keys(body).length === 0),
  csrf: (body) => isObject(body) && typeof body.csrfToken === 'string' && body.csrfToken.length >= 16,
  /** getAccessToken's answer: the stub's access token (servers/oauth-stub.js). */
  token: (body) => isObject(body) && body.accessToken === 'bench-access-token' && typeof body.expiresAt === 'number',
  /** POST /token's answer: a JWT access token, a Bearer, and its lifetime. */
  'access-token': (body) =>
    isObject(body) &&
    body.token_type === 'Bearer' &&
    typeof body.access_token === 'string' &&
    body.access_token.split('.').length === 3 &&
    body.expires_in === 300,
  /** An API route's answer behind requireAccessToken: the token's subject. */
  claims: (body) => isObject(body) && typeof body.sub === 'string' && body.sub.length > 0,
  /** At least the GitHub provider, with its sign-in and callback URLs. */
  /** A sign-in's JSON answer: `{ url }` of the callbackUrl. */
  'signed-in-url': (body) => isObject(body) && typeof body.url === 'string' && !body.url.includes('error='),
  providers: (body) =>
    isObject(body) &&
    isObject(body.github) &&
    typeof body.github.signinUrl === 'string' &&
    typeof body.github.callbackUrl === 'string',
}

/** null when the reply is right, else what is wrong with it. */
exports.checkReply = async (origin, system, headers) => {
  const request = system.method === 'POST' ? { method: 'POST', body: system.body } : {}
  const res = await fetch(`${origin}${system.path}`, { headers, redirect: 'manual', ...request })
  const text = await res.text()
  if (res.status !== 200) return `status ${res.status}: ${text.slice(0, 120)}`
  let body
  try {
    body = JSON.parse(text)
  } catch {
    return `not JSON: ${text.slice(0, 120)}`
  }
  if (!SHAPES[system.expect](body)) return `expected ${system.expect}, got ${text.slice(0, 160)}`
  const sets = cookiePairs(res).length > 0
  if (system.setsCookie === true && !sets) return 'expected a Set-Cookie, got none'
  if (system.setsCookie === false && sets) return `expected no Set-Cookie, got ${res.headers.getSetCookie()[0]}`
  return null
}
