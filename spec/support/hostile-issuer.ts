import { createHash, randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose'

/**
 * An OpenID Connect issuer that misbehaves on purpose, for the checks the real one
 * (spec/support/idp.ts, oidc-provider) cannot be made to fail: a node:http server on 127.0.0.1
 * serving discovery, its JWKS, authorization (no login page: it redirects straight back with a code
 * and the state), token (an ID token signed with an ES256 key of its own) and userinfo.
 *
 * By default it behaves: discovery names its own issuer and announces the RFC 9207 `iss`
 * parameter, the authorization response carries it, the ID token is valid for the client and echoes
 * the nonce of the authorization request, and userinfo speaks of the same subject. A spec changes
 * one answer with `behave()`; `reset()` (in an afterEach) goes back to the behaviour it started with.
 *
 *   const issuer = await startHostileIssuer()
 *   issuer.behave({ idTokenClaims: { nonce: 'another-flow' } })
 *   // … sign in with oidc({ issuer: issuer.issuer, clientId: issuer.clientId, clientSecret: issuer.clientSecret })
 *   await issuer.stop()
 */

export interface Behaviour {
  /** Added to the discovery document; an undefined value removes the field. */
  discovery: Record<string, unknown>
  /** The RFC 9207 `iss` of the authorization response: the issuer's own (`'own'`), another value, or none (null). */
  issParameter: string | null
  /** Added to the ID token claims (iss, aud, sub, nonce echoed from the authorization request, iat, exp); undefined removes one. */
  idTokenClaims: Record<string, unknown>
  /** Added to the ID token's protected header (alg, kid). A `crit` list is signed as understood, so the token is a valid JWS. */
  idTokenHeader: Record<string, unknown>
  /** Added to the userinfo answer ({ sub, name, email }); undefined removes a field. */
  userinfo: Record<string, unknown>
  /**
   * Refresh tokens: the code grant also answers one, with an access token due for refresh (10 s);
   * the refresh grant takes each refresh token once (a spent one is invalid_grant, as with reuse
   * detection) and answers new ones (300 s) with a new ID token (idTokenClaims and idTokenHeader apply).
   */
  refreshTokens: boolean
  /** How long the refresh grant's answer takes, in ms. */
  refreshDelayMs: number
  /** How long the JWKS's answer takes, in ms. */
  jwksDelayMs: number
  /** How long the discovery document's answer takes, in ms. */
  discoveryDelayMs: number
}

export const SUBJECT = 'alice'
export const USER = { name: 'Alice Example', email: 'alice@example.com' }

export interface HostileIssuer {
  readonly issuer: string
  readonly clientId: string
  readonly clientSecret: string
  /** The query of every authorization request received, oldest first. */
  readonly authorizations: URLSearchParams[]
  /** The ID tokens the token endpoint answered, oldest first. */
  readonly idTokens: string[]
  /** How many refresh grant requests it got (answered or not). */
  readonly refreshes: number
  behave(changes: Partial<Behaviour>): void
  /** Any claims signed with the issuer's own key (ES256, its kid unless `header` says otherwise): a logout token, say. */
  sign(claims: Record<string, unknown>, header?: Record<string, unknown>): Promise<string>
  reset(): void
  stop(): Promise<void>
}

interface Grant {
  clientId: string
  redirectUri: string
  challenge: string | null
  nonce: string | null
  used: boolean
}

const DEFAULT_BEHAVIOUR: Behaviour = {
  discovery: {},
  issParameter: 'own',
  idTokenClaims: {},
  idTokenHeader: {},
  userinfo: {},
  refreshTokens: false,
  refreshDelayMs: 0,
  jwksDelayMs: 0,
  discoveryDelayMs: 0,
}

/** `trailingSlash`: the issuer is `http://127.0.0.1:<port>/`, as some issuers write theirs (Auth0). */
export async function startHostileIssuer(
  initial: Partial<Behaviour> = {},
  { trailingSlash = false }: { trailingSlash?: boolean } = {},
): Promise<HostileIssuer> {
  const clientId = 'hostile-client'
  const clientSecret = 'hostile-secret'
  const { publicKey, privateKey } = await generateKeyPair('ES256')
  const kid = 'hostile-es256'
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' }
  const start: Behaviour = { ...DEFAULT_BEHAVIOUR, ...initial }
  let behaviour: Behaviour = { ...start }
  const grants = new Map<string, Grant>()
  const accessTokens = new Set<string>()
  const authorizations: URLSearchParams[] = []
  const idTokens: string[] = []
  const refreshTokens = new Map<string, { spent: boolean }>()
  let refreshes = 0

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) =>
      json(res, 500, { error: 'server_error', error_description: String(error) }),
    )
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const issuer = trailingSlash ? `${origin}/` : origin

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', origin)
    switch (`${req.method} ${url.pathname}`) {
      case 'GET /.well-known/openid-configuration':
        await new Promise((resolve) => setTimeout(resolve, behaviour.discoveryDelayMs))
        return json(
          res,
          200,
          withChanges(
            {
              issuer,
              authorization_endpoint: `${origin}/authorize`,
              token_endpoint: `${origin}/token`,
              userinfo_endpoint: `${origin}/userinfo`,
              jwks_uri: `${origin}/jwks`,
              response_types_supported: ['code'],
              subject_types_supported: ['public'],
              id_token_signing_alg_values_supported: ['ES256'],
              code_challenge_methods_supported: ['S256'],
              token_endpoint_auth_methods_supported: ['client_secret_post'],
              authorization_response_iss_parameter_supported: true,
            },
            behaviour.discovery,
          ),
        )
      case 'GET /jwks':
        await new Promise((resolve) => setTimeout(resolve, behaviour.jwksDelayMs))
        return json(res, 200, { keys: [jwk] })
      case 'GET /authorize':
        return authorize(url.searchParams, res)
      case 'POST /token':
        return token(new URLSearchParams(await readBody(req)), res)
      case 'GET /userinfo': {
        const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1]
        if (bearer === undefined || !accessTokens.has(bearer)) return json(res, 401, { error: 'invalid_token' })
        return json(res, 200, withChanges({ sub: SUBJECT, ...USER }, behaviour.userinfo))
      }
      default:
        return json(res, 404, { error: 'not_found' })
    }
  }

  /** No login page: the user "consents" at once and is sent back with a code and the state. */
  function authorize(query: URLSearchParams, res: ServerResponse): void {
    authorizations.push(query)
    const redirectUri = query.get('redirect_uri')
    if (query.get('client_id') !== clientId || redirectUri === null || query.get('response_type') !== 'code')
      return json(res, 400, { error: 'invalid_request' })
    const code = randomBytes(16).toString('base64url')
    const challenge = query.get('code_challenge_method') === 'S256' ? query.get('code_challenge') : null
    grants.set(code, { clientId, redirectUri, challenge, nonce: query.get('nonce'), used: false })
    const back = new URL(redirectUri)
    back.searchParams.set('code', code)
    const state = query.get('state')
    if (state !== null) back.searchParams.set('state', state)
    const iss = behaviour.issParameter === 'own' ? issuer : behaviour.issParameter
    if (iss !== null) back.searchParams.set('iss', iss)
    res.writeHead(302, { location: back.href }).end()
  }

  /** client_secret_post, the code once, its redirect_uri and its PKCE verifier: what a real issuer checks. */
  async function token(form: URLSearchParams, res: ServerResponse): Promise<void> {
    const grant = grants.get(form.get('code') ?? '')
    if (form.get('client_id') !== clientId || form.get('client_secret') !== clientSecret)
      return json(res, 401, { error: 'invalid_client' })
    if (form.get('grant_type') === 'refresh_token') return refresh(form.get('refresh_token') ?? '', res)
    if (
      form.get('grant_type') !== 'authorization_code' ||
      !grant ||
      grant.used ||
      form.get('redirect_uri') !== grant.redirectUri
    )
      return json(res, 400, { error: 'invalid_grant' })
    const verifier = form.get('code_verifier')
    if (
      grant.challenge !== null &&
      (verifier === null || createHash('sha256').update(verifier).digest('base64url') !== grant.challenge)
    )
      return json(res, 400, { error: 'invalid_grant' })
    grant.used = true
    await answerTokens(res, grant.nonce, false)
  }

  async function refresh(refreshToken: string, res: ServerResponse): Promise<void> {
    refreshes++
    await new Promise((resolve) => setTimeout(resolve, behaviour.refreshDelayMs))
    const known = refreshTokens.get(refreshToken)
    if (!known || known.spent) return json(res, 400, { error: 'invalid_grant' })
    known.spent = true
    await answerTokens(res, null, true)
  }

  /** A token answer: an ID token (with the nonce of the authorization request, if any), an access token, and a refresh token when on. */
  async function answerTokens(res: ServerResponse, nonce: string | null, refreshed: boolean): Promise<void> {
    const now = Math.floor(Date.now() / 1000)
    const claims = withChanges(
      {
        iss: issuer,
        aud: clientId,
        sub: SUBJECT,
        iat: now,
        exp: now + 300,
        ...(nonce === null ? {} : { nonce }),
      },
      behaviour.idTokenClaims,
    )
    const header: Record<string, unknown> = { alg: 'ES256', kid, ...behaviour.idTokenHeader }
    const crit = Array.isArray(header.crit)
      ? Object.fromEntries((header.crit as string[]).map((name) => [name, true]))
      : undefined
    const idToken = await new SignJWT(claims)
      .setProtectedHeader(header as { alg: string; [parameter: string]: unknown })
      .sign(privateKey, crit ? { crit } : {})
    idTokens.push(idToken)
    const accessToken = randomBytes(16).toString('base64url')
    accessTokens.add(accessToken)
    const refreshToken = behaviour.refreshTokens ? randomBytes(16).toString('base64url') : undefined
    if (refreshToken !== undefined) refreshTokens.set(refreshToken, { spent: false })
    json(res, 200, {
      access_token: accessToken,
      token_type: 'Bearer',
      // Due for refresh at once when refresh tokens are on, unless it comes from a refresh.
      expires_in: refreshToken !== undefined && !refreshed ? 10 : 300,
      scope: 'openid email profile',
      id_token: idToken,
      ...(refreshToken === undefined ? {} : { refresh_token: refreshToken }),
    })
  }

  return {
    issuer,
    clientId,
    clientSecret,
    authorizations,
    idTokens,
    get refreshes() {
      return refreshes
    },
    behave: (changes) => {
      behaviour = { ...behaviour, ...changes }
    },
    sign: (claims, header = {}) =>
      new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid, ...header }).sign(privateKey),
    reset: () => {
      behaviour = { ...start }
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** `base` with `changes` applied: an undefined value removes the field. */
function withChanges(base: Record<string, unknown>, changes: Record<string, unknown>): Record<string, unknown> {
  const result: Record<string, unknown> = { ...base, ...changes }
  for (const [name, value] of Object.entries(changes)) if (value === undefined) delete result[name]
  return result
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body))
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = ''
    req.setEncoding('utf8')
    req.on('data', (chunk: string) => {
      body += chunk
    })
    req.on('end', () => resolve(body))
    req.on('error', reject)
  })
}
