import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { oidc } from '../../lib'
import { serve, type Served } from '../support/app'
import { startHostileIssuer, type HostileIssuer } from '../support/hostile-issuer'
import { restoreClock, setClock, useClock } from '../support/clock'

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

describe("back-channel logout when an outsider makes the keys be fetched during the provider's outage", () => {
  let issuer: HostileIssuer
  let keys: Server
  let failing = false
  let app: Served

  beforeAll(async () => {
    issuer = await startHostileIssuer()
    // The issuer's key set, relayed, or (during an outage) 503.
    keys = createServer((_req, res) => {
      if (failing) return void res.writeHead(503).end()
      fetch(`${issuer.issuer}/jwks`)
        .then(async (answer) => res.writeHead(200, { 'content-type': 'application/json' }).end(await answer.text()))
        .catch(() => res.writeHead(502).end())
    })
    await new Promise<void>((resolve) => keys.listen(0, '127.0.0.1', resolve))
    issuer.behave({ discovery: { jwks_uri: `http://127.0.0.1:${(keys.address() as AddressInfo).port}/jwks` } })
    app = await serve({
      providers: [
        oidc({ id: 'hostile', issuer: issuer.issuer, clientId: issuer.clientId, clientSecret: issuer.clientSecret }),
      ],
    })
  })

  afterAll(async () => {
    restoreClock()
    await app.close()
    await issuer.stop()
    await new Promise((resolve) => keys.close(resolve))
  })

  it("still accepts the provider's own logout tokens with the keys it had", async () => {
    const start = now()
    useClock(start)
    const token = (jti: string, header: Record<string, unknown> = {}) =>
      issuer.sign(
        { iss: issuer.issuer, aud: issuer.clientId, iat: now(), jti, events: { [EVENT]: {} }, sid: 'nobody' },
        header,
      )
    expect((await postToken(app, await token('first'))).status).toBe(200)
    // The key set stops answering; a minute later an outsider posts a token with a made-up kid.
    failing = true
    setClock(start + 60)
    expect((await postToken(app, await token('forged', { kid: 'made-up' }))).status).toBe(400)
    // The provider's next logout token, signed with the key it always used, must still be accepted.
    setClock(start + 61)
    expect((await postToken(app, await token('second'))).status).toBe(200)
  })
})

describe("back-channel logout while an outsider's made-up kid has the keys fetched again from a key set that hangs", () => {
  let issuer: HostileIssuer
  let keys: Server
  let hanging = false
  let held: () => void = () => {}
  let app: Served

  beforeAll(async () => {
    issuer = await startHostileIssuer()
    // The issuer's key set, relayed; once `hanging`, it never answers (the service's providerTimeout cuts it).
    keys = createServer((_req, res) => {
      if (hanging) return void held()
      fetch(`${issuer.issuer}/jwks`)
        .then(async (answer) => res.writeHead(200, { 'content-type': 'application/json' }).end(await answer.text()))
        .catch(() => res.writeHead(502).end())
    })
    await new Promise<void>((resolve) => keys.listen(0, '127.0.0.1', resolve))
    issuer.behave({ discovery: { jwks_uri: `http://127.0.0.1:${(keys.address() as AddressInfo).port}/jwks` } })
    app = await serve({
      providerTimeout: 1500,
      providers: [
        oidc({ id: 'hostile', issuer: issuer.issuer, clientId: issuer.clientId, clientSecret: issuer.clientSecret }),
      ],
    })
  })

  afterAll(async () => {
    restoreClock()
    await app.close()
    await issuer.stop()
    keys.closeAllConnections()
    await new Promise((resolve) => keys.close(resolve))
  })

  it("verifies the provider's own token with the keys it has, not with the fetch that hangs", async () => {
    const start = now()
    useClock(start)
    const token = (jti: string, header: Record<string, unknown> = {}) =>
      issuer.sign(
        { iss: issuer.issuer, aud: issuer.clientId, iat: now(), jti, events: { [EVENT]: {} }, sid: 'nobody' },
        header,
      )
    expect((await postToken(app, await token('first'))).status).toBe(200)
    hanging = true
    setClock(start + 60)
    // The outsider's token starts a fetch of the keys that will hang; the provider's arrives meanwhile.
    const fetching = new Promise<void>((resolve) => (held = resolve))
    const forged = postToken(app, await token('forged', { kid: 'made-up' }))
    await fetching
    const own = await postToken(app, await token('second'))
    expect(own.status).toBe(200)
    expect((await forged).status).toBe(400)
  })
})
