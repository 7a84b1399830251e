import { randomBytes } from 'node:crypto'
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { startIdp, type Idp, type IdpClient, type IdpUser } from './idp'
import { freePort } from './process'

/**
 * The real identity provider (../support/idp, oidc-provider) behind a recording proxy that is its
 * issuer: the app reaches the IdP only through it, so a spec sees the token endpoint's traffic (the
 * code, the PKCE verifier and the client secret the app sent; the tokens it got back), which is
 * where the secrets of an OAuth sign-in are. The proxy can also answer the token endpoint itself,
 * as a hostile or broken one would.
 */

export interface TokenExchange {
  request: URLSearchParams
  /** The JSON the app got back, when it was JSON. */
  response: Record<string, unknown> | null
}

/** What the token endpoint answers instead of the IdP, given the app's request. */
export type TokenAnswer = (form: URLSearchParams) => { status: number; body: string; type?: string }

export interface ProxiedIdp {
  /** The proxy's URL, which the IdP calls its issuer. */
  issuer: string
  idp: Idp
  readonly exchanges: TokenExchange[]
  /**
   * The token endpoint's answers from now on: the IdP's (null, the default), or `answer`'s. The
   * IdP's successful answers get a `refresh_token` too, as for a client granted offline access (the
   * test IdP grants none): one more token the app holds and must not log.
   */
  answerTokens(answer: TokenAnswer | null): void
  stop(): Promise<void>
}

export async function startProxiedIdp(clients: IdpClient[], users: IdpUser[]): Promise<ProxiedIdp> {
  const idpPort = await freePort()
  const exchanges: TokenExchange[] = []
  let answer: TokenAnswer | null = null

  const server = createServer((req, res) => {
    relay(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(502)
      res.end(String(error))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  async function relay(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await read(req)
    const isToken = req.method === 'POST' && new URL(req.url ?? '/', issuer).pathname === '/token'
    const form = isToken ? new URLSearchParams(body.toString('utf8')) : null
    if (form && answer) {
      const own = answer(form)
      exchanges.push({ request: form, response: parsed(own.body) })
      res.writeHead(own.status, { 'content-type': own.type ?? 'application/json' }).end(own.body)
      return
    }
    const upstream = await forward(req, body)
    if (!form) {
      res.writeHead(upstream.status, upstream.headers).end(upstream.body)
      return
    }
    const json = parsed(upstream.body.toString('utf8'))
    if (json && typeof json.access_token === 'string') json.refresh_token = randomBytes(24).toString('base64url')
    exchanges.push({ request: form, response: json })
    const text = json ? JSON.stringify(json) : upstream.body
    const headers = { ...upstream.headers, 'content-length': String(Buffer.byteLength(text)) }
    res.writeHead(upstream.status, headers).end(text)
  }

  function forward(req: IncomingMessage, body: Buffer) {
    return new Promise<{ status: number; headers: Record<string, string | string[]>; body: Buffer }>(
      (resolve, reject) => {
        const out = request(
          { host: '127.0.0.1', port: idpPort, method: req.method, path: req.url, headers: req.headers },
          (res) => {
            read(res).then((buffer) => {
              const headers: Record<string, string | string[]> = {}
              for (const [name, value] of Object.entries(res.headers))
                if (value !== undefined && name !== 'transfer-encoding') headers[name] = value
              headers['content-length'] = String(buffer.length)
              resolve({ status: res.statusCode ?? 502, headers, body: buffer })
            }, reject)
          },
        )
        out.once('error', reject)
        out.end(body)
      },
    )
  }

  let idp: Idp
  try {
    idp = await startIdp({ clients, users, port: idpPort, issuer })
  } catch (error) {
    server.close()
    throw error
  }
  return {
    issuer,
    idp,
    exchanges,
    answerTokens: (next) => {
      answer = next
    },
    stop: async () => {
      await idp.stop()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

function read(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    stream.on('data', (chunk: Buffer) => chunks.push(chunk))
    stream.once('end', () => resolve(Buffer.concat(chunks)))
    stream.once('error', reject)
  })
}

function parsed(text: string): Record<string, unknown> | null {
  try {
    const json: unknown = JSON.parse(text)
    return typeof json === 'object' && json !== null && !Array.isArray(json) ? (json as Record<string, unknown>) : null
  } catch {
    return null
  }
}
