// How each system gets the cookie it is measured with: signed in the way a browser would be (the
// package, Passport), or minted with the system's own library (Auth.js's JWT).
const { ADDRESS } = require('../servers/listen')

const FORM = { 'content-type': 'application/x-www-form-urlencoded' }

/** The `name=value` pairs of a response's Set-Cookie headers, optionally only those whose name starts with `prefix`. */
function cookiePairs(res, prefix = '') {
  return res.headers
    .getSetCookie()
    .map((header) => header.split(';', 1)[0])
    .filter((pair) => pair.startsWith(prefix) && !pair.endsWith('='))
}

async function expectStatus(res, status, what) {
  if (res.status !== status) throw new Error(`${what}: expected ${status}, got ${res.status}: ${await res.text()}`)
}

/** No cookie at all. */
exports.none = async () => ({})

/** The CSRF cookie a first GET /csrf sets (each system's own names). */
exports.csrfCookie = async ({ origin, system }) => {
  const res = await fetch(`${origin}${system.path}`)
  await expectStatus(res, 200, 'GET /csrf')
  await res.body?.cancel()
  const pairs = cookiePairs(res)
  if (pairs.length === 0) throw new Error('GET /csrf set no cookie')
  return { cookie: pairs.join('; ') }
}

/**
 * The package: a real sign-in through its e-mail provider. GET /csrf, POST /signin/email, the link
 * that `sendVerificationRequest` prints, then the confirm page's POST /callback/email, which sets
 * the session cookie. Nothing of the package's internals is used, so the way a cookie is sealed
 * (or where a database session is kept) can change without the bench knowing.
 */
exports.emailSignIn = async ({ origin, server }) => {
  const base = `${origin}/api/auth`
  const csrfRes = await fetch(`${base}/csrf`)
  await expectStatus(csrfRes, 200, 'GET /csrf')
  const { csrfToken } = await csrfRes.json()
  const csrfCookie = cookiePairs(csrfRes).join('; ')
  const link = server.waitFor('LINK ')
  link.catch(() => undefined) // awaited below, unless the POST fails first
  const asked = await fetch(`${base}/signin/email`, {
    method: 'POST',
    redirect: 'manual',
    headers: { ...FORM, cookie: csrfCookie },
    body: new URLSearchParams({ csrfToken, email: ADDRESS, callbackUrl: '/' }),
  })
  await expectStatus(asked, 302, 'POST /signin/email')
  const values = new URL(await link).searchParams
  const confirmed = await fetch(`${base}/callback/email`, {
    method: 'POST',
    redirect: 'manual',
    headers: { ...FORM, cookie: csrfCookie },
    body: new URLSearchParams({
      token: values.get('token') ?? '',
      email: values.get('email') ?? '',
      callbackUrl: values.get('callbackUrl') ?? '',
      csrfToken,
    }),
  })
  await expectStatus(confirmed, 302, 'POST /callback/email')
  const session = cookiePairs(confirmed, 'auth.session-token')
  if (session.length === 0) throw new Error('the e-mail sign-in set no session cookie')
  return { cookie: session.join('; ') }
}

/**
 * The package through its OAuth provider `stub` (servers/oauth-stub.js), as a browser signs in:
 * GET /csrf, POST /signin/stub, the stub's authorization redirect, and the callback with the flow
 * cookie, which sets the session cookie.
 */
exports.oauthSignIn = async ({ origin }) => {
  const base = `${origin}/api/auth`
  const csrfRes = await fetch(`${base}/csrf`)
  await expectStatus(csrfRes, 200, 'GET /csrf')
  const { csrfToken } = await csrfRes.json()
  const csrfCookie = cookiePairs(csrfRes).join('; ')
  const started = await fetch(`${base}/signin/stub`, {
    method: 'POST',
    redirect: 'manual',
    headers: { ...FORM, cookie: csrfCookie },
    body: new URLSearchParams({ csrfToken, callbackUrl: '/' }),
  })
  await expectStatus(started, 302, 'POST /signin/stub')
  const flowCookie = cookiePairs(started, 'auth.flow.').join('; ')
  const authorized = await fetch(started.headers.get('location'), { redirect: 'manual' })
  await expectStatus(authorized, 302, 'the stub authorization')
  // The service's `url` has no port: the callback is reached at the server's own origin.
  const back = new URL(authorized.headers.get('location'))
  const callback = await fetch(`${origin}${back.pathname}${back.search}`, {
    redirect: 'manual',
    headers: { cookie: `${csrfCookie}; ${flowCookie}` },
  })
  await expectStatus(callback, 302, 'GET /callback/stub')
  const session = cookiePairs(callback, 'auth.session-token')
  if (session.length === 0) throw new Error('the OAuth sign-in set no session cookie')
  return { cookie: session.join('; ') }
}

/** Auth.js: its default JWT session, encoded with its own `encode`, the secret and the cookie name as salt. */
exports.authjsJwt = async ({ secret }) => {
  const { encode } = await import('@auth/core/jwt')
  const name = 'authjs.session-token'
  const token = await encode({
    secret,
    salt: name,
    token: { sub: 'bench-1', name: null, email: ADDRESS, picture: null },
  })
  return { cookie: `${name}=${token}` }
}

/** express-session + Passport: one POST /login (req.login), keeping express-session's cookie. */
exports.passportLogin = async ({ origin }) => {
  const res = await fetch(`${origin}/login`, { method: 'POST' })
  await expectStatus(res, 204, 'POST /login')
  const pairs = cookiePairs(res, 'connect.sid')
  if (pairs.length === 0) throw new Error('POST /login set no connect.sid cookie')
  return { cookie: pairs.join('; ') }
}

/**
 * The package's password sign-in, as its own request to measure: a sign-up through the pages
 * (GET /csrf, POST /password/signup, the link `sendVerificationRequest` prints, POST
 * /password/confirm), then the body and cookie of `POST /callback/credentials` with the right
 * password, as NextAuth's v4 client sends it. Each measured request is a whole sign-in: one
 * argon2id verification and a new session cookie.
 */
exports.passwordSignIn = async ({ origin, server }) => {
  const base = `${origin}/api/auth`
  const secret = 'violet-harbour-tractor-41'
  const csrfRes = await fetch(`${base}/csrf`)
  await expectStatus(csrfRes, 200, 'GET /csrf')
  const { csrfToken } = await csrfRes.json()
  const csrfCookie = cookiePairs(csrfRes).join('; ')
  const link = server.waitFor('LINK ')
  link.catch(() => undefined)
  const asked = await fetch(`${base}/password/signup`, {
    method: 'POST',
    redirect: 'manual',
    headers: { ...FORM, cookie: csrfCookie },
    body: new URLSearchParams({ csrfToken, email: ADDRESS, password: secret, callbackUrl: '/' }),
  })
  await expectStatus(asked, 302, 'POST /password/signup')
  const values = new URL(await link).searchParams
  const confirmed = await fetch(`${base}/password/confirm`, {
    method: 'POST',
    redirect: 'manual',
    headers: { ...FORM, cookie: csrfCookie },
    body: new URLSearchParams({
      token: values.get('token') ?? '',
      email: values.get('email') ?? '',
      password: secret,
      csrfToken,
    }),
  })
  await expectStatus(confirmed, 302, 'POST /password/confirm')
  return {
    headers: { ...FORM, cookie: csrfCookie },
    body: new URLSearchParams({
      csrfToken,
      email: ADDRESS,
      password: secret,
      callbackUrl: '/',
      json: 'true',
    }).toString(),
  }
}

/**
 * POST /token's request: signed in by e-mail, then the CSRF token and cookie of a GET /csrf made
 * with the session cookie, as a page asks before it asks for a token.
 */
exports.tokenRequest = async (context) => {
  const { cookie } = await exports.emailSignIn(context)
  const csrfRes = await fetch(`${context.origin}/api/auth/csrf`, { headers: { cookie } })
  await expectStatus(csrfRes, 200, 'GET /csrf')
  const { csrfToken } = await csrfRes.json()
  return {
    headers: { ...FORM, cookie: [cookie, ...cookiePairs(csrfRes)].join('; ') },
    body: new URLSearchParams({ csrfToken, resource: 'http://localhost:4000/api' }).toString(),
  }
}

/** An API's request: `Authorization: Bearer` with a token the API server's own issuer signed (servers/api.js). */
exports.bearer = async ({ origin }) => {
  const res = await fetch(`${origin}/bench-token`)
  await expectStatus(res, 200, 'GET /bench-token')
  const { token } = await res.json()
  return { authorization: `Bearer ${token}` }
}

exports.cookiePairs = cookiePairs
