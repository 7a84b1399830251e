// A small but real OpenID Connect identity provider (oidc-provider v9) for the specs and the demo.
//
//   IDP_CONFIG='{"port":0,"clients":[…],"users":[…]}' node examples/idp/server.mjs
//   node examples/idp/server.mjs '{"port":4000,…}'      (or a path to a JSON file)
//
// Config: port (0 = any free port), clients (static oidc-provider client metadata: client_id,
// client_secret, redirect_uris, optional token_endpoint_auth_method, …), users
// ([{ accountId, password?, name, email, emailVerified?, picture? }], a user without a password accepts
// any; emailVerified, default true, is the `email_verified` claim),
// and optionally issuer (used verbatim instead of http://127.0.0.1:<port>), requirePkce (default
// true), conformIdTokenClaims (default false), exitWhenStdinCloses (default false) and
// backchannelLogout (default false: on, the backchannelLogout feature is enabled, for clients that
// register a backchannel_logout_uri, and its logout calls may go to loopback addresses).
// Refresh tokens (all opt-in, off by default): refreshTokens (the offline_access scope and a refresh
// token for every client allowed the refresh_token grant), rotateRefreshToken (a new refresh token
// on each refresh; a consumed one used again revokes the grant: reuse detection),
// accessTokenTtl (seconds, for the code grant's access tokens) and refreshedAccessTokenTtl (for
// the refresh grant's), and countGrants (GET /test/grants answers {"refresh":n,"revoked":n}: the
// refresh grants served and the grants revoked so far; POST /test/revoke-grants revokes every grant
// a token was issued for, as a user withdrawing consent would), tokenEndpointDelayMs (every token request
// answered that much later: concurrent clients then overlap), editableUsers (default false: on,
// PUT /test/users/<accountId> with a JSON body of name, email and emailVerified changes what the IdP
// says of that user from the next token on, as a provider whose user changed their address would).
// A user may also carry amr (a list of RFC 8176 methods) and acr (a string), which the IdP puts in
// the ID tokens of that user's sign-ins, and authTimeAgo (seconds): the sign-in is recorded as made
// that long ago, so its ID tokens carry an old auth_time even after prompt=login (a provider that
// lets an old sign-in stand).
//
// When it listens it prints exactly one line to stdout, `IDP_READY <issuer>`, and runs until
// SIGTERM/SIGINT. Everything else (oidc-provider notices, errors) goes to stderr.
//
// oidc-provider is ESM-only, which jest on Node 20 cannot load: that is why this is a separate
// process and not a module the specs import.

import { generateKeyPair, randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { promisify } from 'node:util'
import { Provider, errors } from 'oidc-provider'

// oidc-provider prints its "you SHOULD change this default" notices with console.info; stdout is
// reserved for the IDP_READY line that the spawning process waits for.
console.info = console.error
console.log = console.error

const config = readConfig()
const users = new Map(config.users.map((user) => [user.accountId, user]))

// Until the Provider exists (see start), requests get a 503.
let handler = (_req, res) => {
  res.statusCode = 503
  res.end()
}
const server = createServer((req, res) => handler(req, res))
server.on('error', (error) => fail(`cannot listen: ${error.message}`))
server.listen(config.port ?? 0, '127.0.0.1', () => start().catch((error) => fail(error.stack)))

async function start() {
  const { port } = server.address()
  // The issuer has to include the port, which with port 0 is only known once we listen: so the
  // Provider is built after listen(), and requests are routed to it from then on.
  const issuer = config.issuer ?? `http://127.0.0.1:${port}`
  const provider = new Provider(issuer, await providerConfiguration(issuer))
  // Plain HTTP: oidc-provider marks its cookies `Secure` only when the request is (ctx.secure), so
  // nothing needs switching off; `proxy` stays false so that an X-Forwarded-Proto header cannot
  // make it set Secure cookies that an http cookie jar (or browser) would then drop.
  provider.proxy = false
  provider.on('server_error', (_ctx, error) => console.error('idp server_error:', error))
  for (const event of ['authorization.error', 'grant.error', 'userinfo.error', 'end_session.error']) {
    provider.on(event, (_ctx, error) =>
      console.error(`idp ${event}: ${error.error ?? error.name}: ${error.error_description ?? error.message}`),
    )
  }

  const counts = { refresh: 0, revoked: 0 }
  const grantIds = new Set()
  if (config.countGrants) {
    provider.on('grant.success', (ctx) => {
      if (ctx.oidc.params?.grant_type === 'refresh_token') counts.refresh++
      const { AuthorizationCode: code, RefreshToken: refresh } = ctx.oidc.entities
      const grantId = code?.grantId ?? refresh?.grantId
      if (grantId) grantIds.add(grantId)
    })
    provider.on('grant.revoked', () => counts.revoked++)
  }
  const oidc = provider.callback()
  handler = (req, res) => {
    if (config.countGrants && req.url === '/test/grants') {
      res.writeHead(200, { 'Content-Type': 'application/json' })
      return void res.end(JSON.stringify(counts))
    }
    if (config.countGrants && req.method === 'POST' && req.url === '/test/revoke-grants') {
      const revoked = [...grantIds].map((grantId) =>
        Promise.all([
          provider.RefreshToken.revokeByGrantId(grantId),
          provider.AccessToken.revokeByGrantId(grantId),
          provider.Grant.adapter.destroy(grantId),
        ]),
      )
      grantIds.clear()
      return void Promise.all(revoked).then(() => res.end())
    }
    if (config.editableUsers && req.method === 'PUT' && req.url.startsWith('/test/users/')) {
      return void editUser(req, res).catch((error) => {
        res.writeHead(400, { 'Content-Type': 'text/plain' })
        res.end(String(error.message))
      })
    }
    if (config.tokenEndpointDelayMs && req.method === 'POST' && req.url === '/token') {
      return void setTimeout(() => oidc(req, res), config.tokenEndpointDelayMs)
    }
    ownRoutes(provider, req, res)
      .then((handled) => {
        if (!handled) oidc(req, res)
      })
      .catch((error) => {
        console.error('idp interaction error:', error)
        if (res.headersSent) return void res.end()
        sendHtml(
          res,
          error instanceof errors.SessionNotFound ? 400 : 500,
          page(
            'Sign-in failed',
            `<p class="error">${escape(error.error_description ?? error.message)}</p><p>Start again from the application.</p>`,
          ),
        )
      })
  }
  process.stdout.write(`IDP_READY ${issuer}\n`)
}

async function providerConfiguration(issuer) {
  // A fresh signing key per run: the specs and the demo get the JWKS from discovery.
  const { privateKey } = await promisify(generateKeyPair)('rsa', { modulusLength: 2048 })
  const jwk = {
    ...privateKey.export({ format: 'jwk' }),
    kid: `idp-${randomBytes(4).toString('hex')}`,
    alg: 'RS256',
    use: 'sig',
  }
  return {
    clients: config.clients.map((client) => ({ ...client })),
    jwks: { keys: [jwk] },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    responseTypes: ['code'], // the authorization code flow only: no implicit or hybrid
    scopes: ['openid', 'email', 'profile', ...(config.refreshTokens ? ['offline_access'] : [])],
    ...refreshTokenConfiguration(),
    // `amr` with `sub`, so that every ID token carries it (when the user has one); `acr` goes in
    // when the client asks with acr_values, and only once the IdP has acr values (the users').
    claims: { openid: ['sub', 'amr'], email: ['email', 'email_verified'], profile: ['name', 'picture'], acr: null },
    acrValues: [...new Set(config.users.flatMap((user) => (user.acr === undefined ? [] : [user.acr])))],
    // With `true` (oidc-provider's default) an ID token issued next to an access token carries only
    // `sub`, and clients must call userinfo. Most real providers (Google, …) put the profile in the
    // ID token too, so that is the default here; pass true to test the strict behaviour.
    conformIdTokenClaims: config.conformIdTokenClaims ?? false,
    // oidc-provider requires PKCE only for public clients; these are confidential, but every client
    // of ours should use it, so the IdP insists (only S256 exists in oidc-provider 9).
    pkce: { required: () => config.requirePkce ?? true },
    async findAccount(_ctx, sub) {
      const user = users.get(sub)
      if (!user) return undefined
      return {
        accountId: sub,
        async claims() {
          return {
            sub,
            name: user.name,
            email: user.email,
            email_verified: user.emailVerified ?? true,
            picture: user.picture ?? `${issuer}/avatar/${encodeURIComponent(sub)}.svg`,
          }
        },
      }
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    features: {
      devInteractions: { enabled: false }, // we serve our own pages, below
      rpInitiatedLogout: { enabled: true, logoutSource, postLogoutSuccessSource },
      backchannelLogout: { enabled: config.backchannelLogout === true },
    },
    // oidc-provider refuses to call special-use addresses (loopback, private networks) from its
    // server, a guard against SSRF through client metadata. This IdP's clients are static and run on
    // 127.0.0.1 beside it, so with backchannelLogout on its logout calls go out without that guard.
    ...(config.backchannelLogout === true
      ? {
          fetch: (url, options) => {
            delete options.dispatcher
            return globalThis.fetch(url, options)
          },
        }
      : {}),
    // Explicit lifetimes (the defaults are fine but oidc-provider nags about each one).
    ttl: {
      AccessToken: accessTokenTtl,
      AuthorizationCode: 60,
      IdToken: 3600,
      Interaction: 3600,
      Session: 86400,
      Grant: 86400,
      ...(config.refreshTokens ? { RefreshToken: 86400 } : {}),
    },
    clientBasedCORS: () => false,
    renderError(ctx, out) {
      ctx.type = 'html'
      ctx.body = page(
        'Sign-in error',
        Object.entries(out)
          .map(([key, value]) => `<p><strong>${escape(key)}</strong>: ${escape(value)}</p>`)
          .join(''),
      )
    },
  }
}

/** With `refreshTokens`: a refresh token for every client allowed the grant, rotated or not. */
function refreshTokenConfiguration() {
  if (!config.refreshTokens) return {}
  return {
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: config.rotateRefreshToken ?? false,
  }
}

/** Seconds an access token lives: the code grant's and the refresh grant's, when configured. */
function accessTokenTtl(ctx) {
  const refreshed = ctx?.oidc?.params?.grant_type === 'refresh_token'
  return (refreshed ? config.refreshedAccessTokenTtl : config.accessTokenTtl) ?? 3600
}

/**
 * Our own pages, in front of oidc-provider's routes. GET /interaction/:uid shows the login form (or,
 * for consent, grants the requested scopes straight away: these are our own static clients);
 * POST …/login signs in; POST …/abort answers the client with error=access_denied. Also serves
 * GET /avatar/:accountId.svg. Returns false for any other URL (oidc-provider's then).
 */
async function ownRoutes(provider, req, res) {
  const url = new URL(req.url, 'http://idp.invalid')
  const avatar = url.pathname.match(/^\/avatar\/([^/]+)\.svg$/)
  if (avatar && req.method === 'GET') return sendAvatar(res, decodeURIComponent(avatar[1]))
  const match = url.pathname.match(/^\/interaction\/([\w-]+)(\/login|\/abort)?$/)
  if (!match) return false
  const action = match[2]

  // Reads the interaction from its cookie; throws SessionNotFound when it is missing or expired.
  const interaction = await provider.interactionDetails(req, res)
  if (interaction.uid !== match[1]) throw new errors.SessionNotFound('interaction and URL do not match')

  if (req.method === 'GET' && !action) {
    if (interaction.prompt.name === 'login') {
      sendHtml(res, 200, loginPage(interaction))
    } else {
      await grantConsent(provider, req, res, interaction)
    }
  } else if (req.method === 'POST' && action === '/login') {
    const form = await readForm(req)
    const user = findUser(form.get('login') ?? '', form.get('password') ?? '')
    if (!user) {
      sendHtml(res, 401, loginPage(interaction, 'Unknown user or wrong password.', form.get('login') ?? ''))
    } else {
      await provider.interactionFinished(req, res, { login: loginResult(user) }, { mergeWithLastSubmission: false })
    }
  } else if (req.method === 'POST' && action === '/abort') {
    await provider.interactionFinished(
      req,
      res,
      { error: 'access_denied', error_description: 'End-User aborted interaction' },
      { mergeWithLastSubmission: false },
    )
  } else {
    res.statusCode = 405
    res.end()
  }
  return true
}

/** The login of an interaction: the account, and the user's configured amr, acr and sign-in time. */
function loginResult(user) {
  return {
    accountId: user.accountId,
    ...(user.amr === undefined ? {} : { amr: user.amr }),
    ...(user.acr === undefined ? {} : { acr: user.acr }),
    ...(user.authTimeAgo === undefined ? {} : { ts: Math.floor(Date.now() / 1000) - user.authTimeAgo }),
  }
}

/** PUT /test/users/<accountId> (editableUsers): the user's name, email and emailVerified, from the JSON body. */
async function editUser(req, res) {
  const user = users.get(decodeURIComponent(req.url.slice('/test/users/'.length)))
  if (!user) {
    res.writeHead(404)
    return void res.end()
  }
  let body = ''
  for await (const chunk of req) {
    body += chunk
    if (body.length > 16384) throw new Error('body too large')
  }
  const changes = JSON.parse(body)
  checkUser({ ...user, ...changes })
  for (const key of ['name', 'email', 'emailVerified']) if (Object.hasOwn(changes, key)) user[key] = changes[key]
  res.writeHead(204)
  res.end()
}

/** Grants whatever the consent prompt says is missing (the pattern from oidc-provider's docs). */
async function grantConsent(provider, req, res, interaction) {
  const {
    prompt: { details },
    params,
    session,
  } = interaction
  const grant = interaction.grantId
    ? await provider.Grant.find(interaction.grantId)
    : new provider.Grant({ accountId: session.accountId, clientId: params.client_id })
  if (details.missingOIDCScope) grant.addOIDCScope(details.missingOIDCScope.join(' '))
  if (details.missingOIDCClaims) grant.addOIDCClaims(details.missingOIDCClaims)
  for (const [indicator, scopes] of Object.entries(details.missingResourceScopes ?? {})) {
    grant.addResourceScope(indicator, scopes.join(' '))
  }
  const grantId = await grant.save()
  await provider.interactionFinished(
    req,
    res,
    { consent: interaction.grantId ? {} : { grantId } },
    { mergeWithLastSubmission: true },
  )
}

/** By accountId or e-mail; a user configured without a password accepts any non-empty one. */
function findUser(login, password) {
  const wanted = login.trim().toLowerCase()
  const user = config.users.find((u) => u.accountId.toLowerCase() === wanted || u.email?.toLowerCase() === wanted)
  if (!user || !password) return undefined
  return user.password === undefined || user.password === password ? user : undefined
}

function loginPage(interaction, error, login = '') {
  const { uid, params } = interaction
  const hints = config.users
    .map(
      (u) =>
        `<li><code>${escape(u.accountId)}</code> / ${u.password === undefined ? 'any password' : `<code>${escape(u.password)}</code>`}</li>`,
    )
    .join('')
  return page(
    'Sign in',
    `
    <p><code>${escape(params.client_id)}</code> asks for: ${escape(params.scope ?? '')}</p>
    ${error ? `<p class="error" role="alert">${escape(error)}</p>` : ''}
    <form id="login-form" method="post" action="/interaction/${uid}/login">
      <label>Username or e-mail <input name="login" value="${escape(login)}" autocomplete="username" required autofocus></label>
      <label>Password <input name="password" type="password" autocomplete="current-password" required></label>
      <button type="submit">Sign in</button>
    </form>
    <form id="abort-form" method="post" action="/interaction/${uid}/abort">
      <button type="submit" class="secondary">Cancel</button>
    </form>
    <p class="hint">Demo ${config.users.length === 1 ? 'user' : 'users'} (test identity provider):</p><ul class="hint">${hints}</ul>`,
  )
}

async function logoutSource(ctx, form) {
  // `form` is oidc-provider's hidden form (id op.logoutForm, carrying its xsrf token).
  ctx.body = page(
    'Sign out',
    `${form}
    <p>Sign out of the test identity provider at ${escape(ctx.host)}?</p>
    <button type="submit" form="op.logoutForm" name="logout" value="yes">Sign out</button>
    <button type="submit" form="op.logoutForm" class="secondary">Stay signed in</button>`,
  )
}

async function postLogoutSuccessSource(ctx) {
  ctx.body = page('Signed out', '<p>You are signed out of the test identity provider.</p>')
}

/** A self-contained page: no external fonts, scripts or images. */
function page(title, body) {
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)} · Test IdP</title>
<style>
  body { font-family: system-ui, sans-serif; max-width: 22rem; margin: 3rem auto; padding: 0 1rem; color: #222; }
  label { display: block; margin: .75rem 0; } input { display: block; width: 100%; box-sizing: border-box; padding: .4rem; }
  button { width: 100%; padding: .5rem; margin: .25rem 0; background: #2457c5; color: #fff; border: 0; border-radius: 4px; cursor: pointer; }
  button.secondary { background: #e4e4e4; color: #222; }
  .error { color: #b00020; } .hint { color: #666; font-size: .9rem; }
</style></head>
<body><h1>${escape(title)}</h1>${body}</body></html>`
}

function sendHtml(res, status, html) {
  res.writeHead(status, {
    'Content-Type': 'text/html; charset=utf-8',
    'Cache-Control': 'no-store',
    // No form-action: browsers apply it to the redirects after a POST too, and ours end at the client.
    'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; frame-ancestors 'none'",
  })
  res.end(html)
}

/** A generated avatar for users configured without a `picture`, so no page loads anything external. */
function sendAvatar(res, accountId) {
  const user = users.get(accountId)
  if (!user) return false
  const initial = escape((user.name || accountId).charAt(0).toUpperCase())
  res.writeHead(200, { 'Content-Type': 'image/svg+xml', 'Cache-Control': 'max-age=3600' })
  res.end(
    `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><rect width="64" height="64" fill="#2457c5"/><text x="32" y="42" font-size="28" font-family="sans-serif" text-anchor="middle" fill="#fff">${initial}</text></svg>`,
  )
  return true
}

async function readForm(req) {
  let body = ''
  for await (const chunk of req) {
    body += chunk
    if (body.length > 16384) throw new Error('form too large')
  }
  return new URLSearchParams(body)
}

function escape(value) {
  return String(value).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

function readConfig() {
  const raw = process.argv[2] ?? process.env.IDP_CONFIG
  if (!raw) fail('no configuration: set IDP_CONFIG (JSON) or pass the JSON (or a JSON file path) as the first argument')
  let parsed
  try {
    parsed = JSON.parse(raw.trimStart().startsWith('{') ? raw : readFileSync(raw, 'utf8'))
  } catch (error) {
    fail(`invalid configuration: ${error.message}`)
  }
  if (!Array.isArray(parsed.clients) || parsed.clients.length === 0) fail('configuration needs at least one client')
  for (const client of parsed.clients) {
    if (!client.client_id || !client.client_secret || !Array.isArray(client.redirect_uris))
      fail(`client ${JSON.stringify(client)} needs client_id, client_secret and redirect_uris`)
  }
  if (!Array.isArray(parsed.users) || parsed.users.length === 0) fail('configuration needs at least one user')
  for (const user of parsed.users) {
    try {
      checkUser(user)
    } catch (error) {
      fail(error.message)
    }
  }
  if (parsed.issuer !== undefined && new URL(parsed.issuer).pathname !== '/')
    fail('issuer must not have a path (the provider is served at the root)')
  if (parsed.issuer !== undefined) parsed.issuer = parsed.issuer.replace(/\/$/, '')
  return parsed
}

function checkUser(user) {
  if (!user.accountId || !user.email) throw new Error(`user ${JSON.stringify(user)} needs accountId and email`)
  if (user.emailVerified !== undefined && typeof user.emailVerified !== 'boolean')
    throw new Error(`user ${user.accountId}: emailVerified must be true or false`)
  if (user.amr !== undefined && !(Array.isArray(user.amr) && user.amr.every((m) => typeof m === 'string')))
    throw new Error(`user ${user.accountId}: amr must be a list of strings`)
  if (user.acr !== undefined && typeof user.acr !== 'string')
    throw new Error(`user ${user.accountId}: acr must be a string`)
  if (user.authTimeAgo !== undefined && !(Number.isInteger(user.authTimeAgo) && user.authTimeAgo >= 0))
    throw new Error(`user ${user.accountId}: authTimeAgo must be a number of seconds`)
}

function fail(message) {
  console.error(`idp: ${message}`)
  process.exit(1)
}

function shutdown() {
  server.close(() => process.exit(0))
  server.closeAllConnections() // keep-alive connections from fetch would otherwise hold close() open
  setTimeout(() => process.exit(0), 2000).unref()
}
process.once('SIGTERM', shutdown)
process.once('SIGINT', shutdown)
// A lifeline for the spawning process: if it dies without stopping us (a crashed jest worker),
// our stdin pipe reaches EOF and we go too.
if (config.exitWhenStdinCloses) {
  process.stdin.on('end', shutdown).resume()
}
