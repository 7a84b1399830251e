import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { oidc } from '../../lib'
import { serve, type Served } from '../support/app'
import { startHostileIssuer, type HostileIssuer } from '../support/hostile-issuer'

/**
 * Attacks from outside on OpenID Connect logout (issue 23): each test is a finding that failed
 * before its fix on this branch.
 */

const EVENT = 'http://schemas.openid.net/event/backchannel-logout'
const now = () => Math.floor(Date.now() / 1000)

function postToken(app: Served, token: string, provider = 'hostile'): Promise<Response> {
  return fetch(`${app.base}/backchannel-logout/${provider}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ logout_token: token }),
  })
}

describe("back-channel logout when the provider's key set does not answer", () => {
  let issuer: HostileIssuer
  let keys: Server
  let keyRequests = 0
  let app: Served

  beforeAll(async () => {
    // The issuer's key set answers 503 (an outage, or a rate limit of its own).
    keys = createServer((_req, res) => {
      keyRequests++
      res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"unavailable"}')
    })
    await new Promise<void>((resolve) => keys.listen(0, '127.0.0.1', resolve))
    const keysUri = `http://127.0.0.1:${(keys.address() as AddressInfo).port}/jwks`
    issuer = await startHostileIssuer({ discovery: { jwks_uri: keysUri } })
    app = await serve({
      providers: [
        oidc({ id: 'hostile', issuer: issuer.issuer, clientId: issuer.clientId, clientSecret: issuer.clientSecret }),
      ],
    })
  })

  afterAll(async () => {
    await app.close()
    await issuer.stop()
    await new Promise((resolve) => keys.close(resolve))
  })

  it('lets nobody make the service fetch the keys for every token posted (at most once per 30 s)', async () => {
    // Anyone can post to this route, uncounted: made-up tokens, with and without a kid.
    const claims = { iss: issuer.issuer, aud: issuer.clientId, iat: now(), events: { [EVENT]: {} }, sid: 's' }
    for (let i = 0; i < 10; i++) {
      const header = i % 2 === 0 ? { kid: `made-up-${i}` } : {}
      const res = await postToken(app, await issuer.sign({ ...claims, jti: `j-${i}` }, header))
      expect(res.status).toBe(400)
    }
    expect(keyRequests).toBeLessThanOrEqual(1)
  })
})
