import { createHmac, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto'
import { createServer, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * A stand-in for the auth service's issuing side, for the specs of `requireAccessToken()`: a JWKS
 * endpoint on loopback (node:http) publishing the keys a spec chooses, and a signer of compact JWS
 * written here with node:crypto, so that a spec can also sign what no issuer should (`alg: none`,
 * HS256 with the public key as the secret, a wrong `typ`). The JWKS can be made to hang: it accepts
 * the connection and never answers.
 */

export interface TestKey {
  readonly kid: string
  readonly alg: 'EdDSA' | 'ES256'
  readonly privateKey: KeyObject
  readonly publicKey: KeyObject
  /** The public JWK as the service publishes it: kid, alg, use 'sig'. */
  readonly jwk: Record<string, unknown>
}

export function testKey(alg: 'EdDSA' | 'ES256', kid = `${alg}-${randomBytes(4).toString('hex')}`): TestKey {
  const { privateKey, publicKey } =
    alg === 'EdDSA' ? generateKeyPairSync('ed25519') : generateKeyPairSync('ec', { namedCurve: 'P-256' })
  return { kid, alg, privateKey, publicKey, jwk: { ...publicKey.export({ format: 'jwk' }), kid, alg, use: 'sig' } }
}

const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')

/** A compact JWS of `payload` under `header`, signed as `header.alg` says (`none`: no signature). */
export function signJws(header: Record<string, unknown>, payload: Record<string, unknown>, key?: KeyObject | Buffer) {
  const input = `${part(header)}.${part(payload)}`
  let signature: Buffer
  if (header.alg === 'none') signature = Buffer.alloc(0)
  else if (header.alg === 'HS256')
    signature = createHmac('sha256', key as Buffer)
      .update(input)
      .digest()
  else if (header.alg === 'ES256')
    signature = sign('sha256', Buffer.from(input), { key: key as KeyObject, dsaEncoding: 'ieee-p1363' })
  else signature = sign(null, Buffer.from(input), key as KeyObject)
  return `${input}.${signature.toString('base64url')}`
}

export interface TokenIssuer {
  /** The service's URL as its tokens name it: `http://127.0.0.1:<port>/api/auth`. */
  readonly issuer: string
  /** Requests the JWKS received (answered or not). */
  hits(): number
  /** The keys published from now on. */
  publish(...keys: TestKey[]): void
  /** From now on, requests for the JWKS are accepted and never answered (until `close`). */
  hang(): void
  /** An access token with the usual claims (as the service issues them), overridden by `claims`. */
  token(key: TestKey, claims?: Record<string, unknown>, header?: Record<string, unknown>): string
  close(): Promise<void>
}

export const AUDIENCE = 'https://api.example.com'
export const AAL2 = 'http://idmanagement.gov/ns/assurance/aal/2'

export async function startIssuer(...keys: TestKey[]): Promise<TokenIssuer> {
  let published = keys
  let hits = 0
  let hanging = false
  const held: ServerResponse[] = []
  const server: Server = createServer((req, res) => {
    hits++
    if (hanging) return void held.push(res)
    if (req.url !== '/api/auth/jwks') return void res.writeHead(404).end()
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ keys: published.map((k) => k.jwk) }))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/auth`
  return {
    issuer,
    hits: () => hits,
    publish: (...next) => void (published = next),
    hang: () => void (hanging = true),
    token(key, claims = {}, header = {}) {
      const now = Math.floor(Date.now() / 1000)
      const payload = {
        iss: issuer,
        sub: 'user-1',
        aud: AUDIENCE,
        client_id: 'web',
        iat: now,
        exp: now + 300,
        jti: randomBytes(12).toString('base64url'),
        sid: randomBytes(16).toString('base64url'),
        auth_time: now - 10,
        amr: ['email'],
        acr: 'http://idmanagement.gov/ns/assurance/aal/1',
        role: 'reader',
        ...claims,
      }
      return signJws({ alg: key.alg, typ: 'at+jwt', kid: key.kid, ...header }, payload, key.privateKey)
    },
    async close() {
      for (const res of held) res.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
