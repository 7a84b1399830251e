import { randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * A plain OAuth 2 provider (for oauth2()) whose token endpoint misbehaves on refresh, on purpose:
 * authorization redirects straight back with a code; the code grant answers an access token that
 * is already due for refresh (10 s) and a refresh token; the refresh grant answers as `refresh` says.
 * Every token and the client secret are random, for the specs to look for in logs. `github`: both
 * grants answer as GitHub Apps' expiring user tokens do, form-encoded with an empty scope
 * (`…&scope=&token_type=bearer`). `late`: the refresh is served (its refresh token spent, a new
 * one issued) but answered only after `lateMs`. `stalled`: the refresh is served, the answer's headers
 * and half its body go out, and the rest never does.
 */
export type RefreshBehaviour =
  'ok' | 'slow' | 'huge' | 'malformed' | 'quote-request' | 'invalid_grant' | 'late' | 'stalled'

export interface HostileTokenEndpoint {
  readonly origin: string
  readonly clientId: string
  readonly clientSecret: string
  /** Every token it handed out, and the bodies of the refresh requests it got. */
  readonly secrets: string[]
  refreshes: number
  refresh: RefreshBehaviour
  /** The code grant answers an access token of this many characters (default: a short one). */
  accessTokenLength: number
  /** Both grants answer GitHub Apps' way: form-encoded, `scope=` and `token_type=bearer`. */
  github: boolean
  /** The refresh grant's access tokens live this many seconds (default 10, as the code grant's). */
  refreshedLifetime: number
  /** With `late`: how long the refresh answer takes. */
  lateMs: number
  /** Stops listening (a request then is refused before anything is sent); `up()` listens again on the same port. */
  down(): Promise<void>
  up(): Promise<void>
  stop(): Promise<void>
}

export async function startHostileTokenEndpoint(): Promise<HostileTokenEndpoint> {
  const random = () => randomBytes(18).toString('base64url')
  const endpoint: HostileTokenEndpoint = {
    origin: '',
    clientId: 'client',
    clientSecret: `secret-${random()}`,
    secrets: [],
    refreshes: 0,
    refresh: 'ok',
    accessTokenLength: 0,
    github: false,
    refreshedLifetime: 10,
    lateMs: 0,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
    down: () => endpoint.stop(),
    up: () =>
      new Promise<void>((resolve) => server.listen(Number(new URL(endpoint.origin).port), '127.0.0.1', resolve)),
  }
  const tokens = (lifetime = 10) => {
    const answer = {
      access_token: `at-${random()}`,
      refresh_token: `rt-${random()}`,
      token_type: 'Bearer',
      expires_in: lifetime,
    }
    endpoint.secrets.push(answer.access_token, answer.refresh_token)
    return answer
  }
  const json = (res: ServerResponse, status: number, body: Record<string, unknown>) => {
    if (status === 200 && endpoint.github) {
      const { access_token, refresh_token, expires_in } = body as Record<string, string>
      res.writeHead(200, { 'Content-Type': 'application/x-www-form-urlencoded' })
      return void res.end(
        `access_token=${access_token}&expires_in=${expires_in}&refresh_token=${refresh_token}&refresh_token_expires_in=15811200&scope=&token_type=bearer`,
      )
    }
    res.writeHead(status, { 'Content-Type': 'application/json' })
    res.end(JSON.stringify(body))
  }
  async function token(req: IncomingMessage, res: ServerResponse) {
    let body = ''
    for await (const chunk of req) body += String(chunk)
    const form = new URLSearchParams(body)
    if (form.get('grant_type') !== 'refresh_token')
      return json(res, 200, {
        ...tokens(),
        ...(endpoint.accessTokenLength ? { access_token: 'a'.repeat(endpoint.accessTokenLength) } : {}),
      })
    endpoint.refreshes++
    endpoint.secrets.push(body)
    switch (endpoint.refresh) {
      case 'slow':
        return // never answers
      case 'late': {
        const answer = tokens(endpoint.refreshedLifetime)
        return void setTimeout(() => json(res, 200, answer), endpoint.lateMs)
      }
      case 'stalled': {
        const { access_token, refresh_token } = tokens(endpoint.refreshedLifetime)
        res.writeHead(200, { 'Content-Type': 'application/json' })
        return void res.write(`{"access_token":"${access_token}","refresh_token":"${refresh_token}",`)
      }
      case 'huge':
        res.writeHead(200, { 'Content-Type': 'application/json' })
        return void res.end(`{"access_token":"${'a'.repeat(2 * 1024 * 1024)}"}`)
      case 'malformed':
        res.writeHead(200, { 'Content-Type': 'application/json' })
        return void res.end('{"access_token": "at-broken", ')
      case 'quote-request':
        return json(res, 400, { error: 'invalid_request', error_description: `you sent ${body}` })
      case 'invalid_grant':
        return json(res, 400, {
          error: 'invalid_grant',
          error_description: `refresh token ${form.get('refresh_token')} revoked`,
        })
      default:
        return json(res, 200, tokens(endpoint.refreshedLifetime))
    }
  }
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x')
    if (url.pathname === '/authorize') {
      const back = new URL(url.searchParams.get('redirect_uri')!)
      back.searchParams.set('code', random())
      back.searchParams.set('state', url.searchParams.get('state')!)
      res.writeHead(302, { Location: back.href })
      return void res.end()
    }
    if (url.pathname === '/token' && req.method === 'POST') return void token(req, res)
    json(res, 404, {})
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return Object.assign(endpoint, { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })
}
