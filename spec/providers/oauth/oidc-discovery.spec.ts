import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { discover, jwksCache } from '../../../lib/features/oauth/oidc-discovery'
import type { OidcProvider } from '../../../lib/features/oauth/types'

/** An issuer on 127.0.0.1 whose every answer the spec sets: status and body, recording request headers. */
function issuerServer() {
  const state = {
    status: 200,
    /** How long an answer waits, as it was when its request arrived. */
    delayMs: 0,
    body: '' as string | Buffer,
    requests: [] as IncomingHttpHeaders[],
  }
  const server = createServer((req, res) => {
    state.requests.push(req.headers)
    const { status, body, delayMs } = state
    setTimeout(() => {
      res.statusCode = status
      res.setHeader('content-type', 'application/json')
      res.end(body)
    }, delayMs)
  })
  const origin = new Promise<string>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  )
  const close = () =>
    new Promise((resolve) => {
      server.closeAllConnections()
      server.close(resolve)
    })
  return { state, origin, close }
}

const server = issuerServer()
let issuer: string
let provider: OidcProvider
beforeAll(async () => {
  issuer = await server.origin
  provider = { issuer } as OidcProvider
})
afterAll(() => server.close())

const document = () => ({
  issuer,
  authorization_endpoint: `${issuer}/authorize`,
  token_endpoint: `${issuer}/token`,
  jwks_uri: `${issuer}/jwks`,
})

describe('discovery', () => {
  it('reads the document, asking for JSON', async () => {
    server.state.status = 200
    server.state.body = JSON.stringify(document())
    await expect(discover(provider, 5000)).resolves.toEqual(document())
    expect(server.state.requests.at(-1)?.accept).toBe('application/json')
  })

  it('refuses an answer that is not 200, whatever its body', async () => {
    server.state.status = 404
    server.state.body = JSON.stringify(document())
    await expect(discover(provider, 5000)).rejects.toThrow(`${issuer}/.well-known/openid-configuration answered 404`)
  })

  it('refuses an answer that is not a JSON object, or is empty', async () => {
    server.state.status = 200
    server.state.body = '[1]'
    await expect(discover(provider, 5000)).rejects.toThrow(
      `${issuer}/.well-known/openid-configuration did not answer a JSON object`,
    )
    server.state.body = ''
    await expect(discover(provider, 5000)).rejects.toThrow()
  })

  it.each(['authorization_endpoint', 'token_endpoint', 'jwks_uri'])('refuses a document without %s', async (field) => {
    server.state.status = 200
    server.state.body = JSON.stringify({ ...document(), [field]: undefined })
    await expect(discover(provider, 5000)).rejects.toThrow(`discovery has no ${field}`)
  })

  it('reads a document of exactly 1 MiB, and refuses a longer one', async () => {
    server.state.status = 200
    const sized = (length: number) => {
      const empty = JSON.stringify({ ...document(), pad: '' })
      return JSON.stringify({ ...document(), pad: 'p'.repeat(length - empty.length) })
    }
    server.state.body = sized(1024 * 1024)
    expect(Buffer.byteLength(server.state.body)).toBe(1024 * 1024)
    await expect(discover(provider, 5000)).resolves.toMatchObject({ issuer })
    server.state.body = sized(1024 * 1024 + 1)
    await expect(discover(provider, 5000)).rejects.toThrow(`answered more than ${1024 * 1024} bytes`)
  })
})

describe('the endpoints discovery names', () => {
  const FIELDS = ['authorization_endpoint', 'token_endpoint', 'userinfo_endpoint', 'jwks_uri'] as const

  it.each(FIELDS)('refuses a document whose %s is not an absolute http(s) URL', async (field) => {
    server.state.status = 200
    for (const value of [42, { href: `${issuer}/x` }, '/relative', 'ftp://127.0.0.1/x', 'javascript:alert(1)']) {
      server.state.body = JSON.stringify({ ...document(), [field]: value })
      await expect(discover(provider, 5000)).rejects.toThrow(`discovery's ${field} is not an absolute http(s) URL`)
    }
  })

  it('reads a userinfo_endpoint, and a document without one', async () => {
    server.state.status = 200
    server.state.body = JSON.stringify({ ...document(), userinfo_endpoint: `${issuer}/me` })
    await expect(discover(provider, 5000)).resolves.toMatchObject({ userinfo_endpoint: `${issuer}/me` })
    server.state.body = JSON.stringify(document())
    await expect(discover(provider, 5000)).resolves.not.toHaveProperty('userinfo_endpoint')
  })

  describe('of an https issuer', () => {
    // An https issuer cannot run on this spec's loopback server without a certificate Node trusts:
    // its one answer is given to fetch directly.
    const secure = { issuer: 'https://idp.example.com' } as OidcProvider
    const secureDocument = {
      issuer: secure.issuer,
      authorization_endpoint: 'https://idp.example.com/authorize',
      token_endpoint: 'https://idp.example.com/token',
      userinfo_endpoint: 'https://idp.example.com/me',
      jwks_uri: 'https://idp.example.com/jwks',
    }
    const answer = (body: object) =>
      jest.spyOn(globalThis, 'fetch').mockImplementation(async () => new Response(JSON.stringify(body)))
    afterEach(() => jest.restoreAllMocks())

    it('reads https endpoints', async () => {
      answer(secureDocument)
      await expect(discover(secure, 5000)).resolves.toEqual(secureDocument)
    })

    it.each(FIELDS)(
      'refuses a plain http %s (tokens and the client secret would travel in clear text)',
      async (field) => {
        answer({ ...secureDocument, [field]: 'http://idp.example.com/x' })
        await expect(discover(secure, 5000)).rejects.toThrow(
          `discovery's ${field} is plain http, but the issuer is https: "http://idp.example.com/x"`,
        )
      },
    )
  })
})

describe('the key set cache', () => {
  const KEY = { kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo', kid: 'k1' }

  it('forgets a failed fetch, so that the next token fetches the keys again', async () => {
    const cache = jwksCache(`${issuer}/jwks`, 5000)
    server.state.status = 500
    server.state.body = '{}'
    await expect(cache.current()).rejects.toThrow('answered 500')
    server.state.status = 200
    server.state.body = JSON.stringify({ keys: [KEY] })
    await expect(cache.current()).resolves.toEqual([KEY])
  })

  it('keeps the keys of a newer fetch when an older one fails after it', async () => {
    const cache = jwksCache(`${issuer}/jwks`, 5000)
    server.state.status = 200
    server.state.body = JSON.stringify({ keys: [KEY] })
    await expect(cache.current()).resolves.toEqual([KEY])
    const fetches = server.state.requests.length
    server.state.status = 500
    server.state.delayMs = 200
    const failing = cache.refresh()
    while (server.state.requests.length === fetches) await new Promise((resolve) => setTimeout(resolve, 5))
    server.state.status = 200
    server.state.delayMs = 0
    const newer = cache.refresh()
    await expect(newer).resolves.toEqual([KEY])
    await expect(failing).rejects.toThrow('answered 500')
    await expect(cache.current()).resolves.toEqual([KEY])
    expect(server.state.requests.length).toBe(fetches + 2)
  })

  it('keeps only the entries that are keys (with a kty)', async () => {
    const cache = jwksCache(`${issuer}/jwks`, 5000)
    server.state.status = 200
    server.state.body = JSON.stringify({ keys: [{ kid: 'k2' }, null, 'k3', KEY] })
    await expect(cache.current()).resolves.toEqual([KEY])
  })
})
