import { createServer as createHttpServer, type Server } from 'node:http'
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net'
import { oauth2, oidc, type AuthOptions } from '../../lib'
import { serve } from '../support/app'
import { Browser } from '../support/browser'
import { freePort } from '../support/process'
import { rawExchange } from '../support/raw-http'

/**
 * Providers that never answer, answer half, or are asked nothing at all: every outgoing request
 * has a deadline, and a callback without a code or without its PKCE verifier is refused before
 * any token request is made.
 */

const DEADLINE = 300

/** A TCP server that accepts every connection and never says a word. */
async function silentServer(): Promise<{ url: string; sockets: Socket[]; close(): Promise<void> }> {
  const sockets: Socket[] = []
  const server: TcpServer = createTcpServer((socket) => {
    sockets.push(socket)
  })
  const port = await freePort()
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${port}`,
    sockets,
    close: () =>
      new Promise((resolve) => {
        sockets.forEach((socket) => socket.destroy())
        server.close(() => resolve())
      }),
  }
}

/** A provider whose token endpoint answers a token and whose userinfo endpoint never answers; it counts token requests. */
async function halfProvider(): Promise<{ url: string; tokenRequests: () => number; close(): Promise<void> }> {
  let tokens = 0
  const server: Server = createHttpServer((req, res) => {
    if (req.url?.startsWith('/token')) {
      tokens++
      res.setHeader('Content-Type', 'application/json')
      res.end(JSON.stringify({ access_token: 'at', token_type: 'Bearer' }))
    }
    // /userinfo: never answered
  })
  const port = await freePort()
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${port}`,
    tokenRequests: () => tokens,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** The service with short deadlines and no `url` (its URL from the Host header, trustHost), unless `options` say otherwise. */
function withDeadlines(options: AuthOptions): AuthOptions {
  return { providerTimeout: DEADLINE, bodyTimeout: DEADLINE, ...options, url: undefined, trustHost: true }
}

/** POST /signin/:provider as the sign-in page would; the answer and the `state` it sent to the provider. */
async function startSignIn(browser: Browser, provider: string) {
  const res = await browser.startSignIn(provider, { callbackUrl: '/done' })
  const location = res.headers.get('location') ?? ''
  return { res, state: location.includes('state=') ? new URL(location).searchParams.get('state')! : '' }
}

describe('outgoing requests have a deadline (providerTimeout)', () => {
  it('an issuer that never answers discovery: the sign-in fails with OAuthSignin, promptly', async () => {
    const silent = await silentServer()
    const app = await serve(
      withDeadlines({ providers: [oidc({ id: 'mute', issuer: silent.url, clientId: 'c', clientSecret: 's' })] }),
    )
    try {
      const { res } = await startSignIn(new Browser(app), 'mute')
      expect(res.status).toBe(302)
      expect(res.headers.get('location')).toBe(`${app.base}/error?error=OAuthSignin`)
      expect(silent.sockets.length).toBeGreaterThan(0)
      expect(JSON.stringify(app.logs)).toMatch(/timeout|aborted/i)
    } finally {
      await app.close()
      await silent.close()
    }
  })

  it('a token endpoint that never answers: the callback fails with OAuthCallback and nobody is signed in', async () => {
    const silent = await silentServer()
    const app = await serve(
      withDeadlines({
        providers: [
          oauth2({
            id: 'mute',
            clientId: 'c',
            clientSecret: 's',
            authorizationUrl: `${silent.url}/authorize`,
            tokenUrl: `${silent.url}/token`,
          }),
        ],
      }),
    )
    try {
      const browser = new Browser(app)
      const { state } = await startSignIn(browser, 'mute')
      const back = await browser.returnTo(`${app.base}/callback/mute?code=abc&state=${encodeURIComponent(state)}`)
      expect(back.headers.get('location')).toBe(`${app.base}/error?error=OAuthCallback`)
      expect(browser.cookie('auth.session-token')).toBeUndefined()
      expect(JSON.stringify(app.logs)).toContain(`no complete answer within ${DEADLINE} ms`)
    } finally {
      await app.close()
      await silent.close()
    }
  })

  it('a userinfo endpoint that never answers: the callback fails with OAuthCallback', async () => {
    const half = await halfProvider()
    const app = await serve(
      withDeadlines({
        providers: [
          oauth2({
            id: 'half',
            clientId: 'c',
            clientSecret: 's',
            authorizationUrl: `${half.url}/authorize`,
            tokenUrl: `${half.url}/token`,
            userinfoUrl: `${half.url}/userinfo`,
          }),
        ],
      }),
    )
    try {
      const browser = new Browser(app)
      const { state } = await startSignIn(browser, 'half')
      const back = await browser.returnTo(`${app.base}/callback/half?code=abc&state=${encodeURIComponent(state)}`)
      expect(back.headers.get('location')).toBe(`${app.base}/error?error=OAuthCallback`)
      expect(half.tokenRequests()).toBe(1)
      expect(browser.cookie('auth.session-token')).toBeUndefined()
    } finally {
      await app.close()
      await half.close()
    }
  })
})

describe('answers from a provider are capped', () => {
  it('a discovery document that never ends is cut off at 1 MB, well before the deadline', async () => {
    let sent = 0
    const endless: Server = createHttpServer((_req, res) => {
      res.setHeader('Content-Type', 'application/json')
      res.write('{"issuer":"')
      const chunk = 'x'.repeat(64 * 1024)
      const more = () => {
        while (sent < 64 * 1024 * 1024 && res.write(chunk)) sent += chunk.length
        if (sent < 64 * 1024 * 1024) res.once('drain', more)
      }
      more()
    })
    const port = await freePort()
    await new Promise<void>((resolve) => endless.listen(port, '127.0.0.1', resolve))
    const app = await serve(
      withDeadlines({
        providers: [oidc({ id: 'endless', issuer: `http://127.0.0.1:${port}`, clientId: 'c', clientSecret: 's' })],
        providerTimeout: 20_000,
      }),
    )
    try {
      const { res } = await startSignIn(new Browser(app), 'endless')
      expect(res.headers.get('location')).toBe(`${app.base}/error?error=OAuthSignin`)
      expect(JSON.stringify(app.logs)).toContain('answered more than 1048576 bytes')
      expect(sent).toBeLessThan(16 * 1024 * 1024)
    } finally {
      await app.close()
      await new Promise((resolve) => {
        endless.closeAllConnections()
        endless.close(resolve)
      })
    }
  })
})

describe('checks made before any token request', () => {
  it('a callback without a code is refused, and the token endpoint is never asked', async () => {
    const half = await halfProvider()
    const app = await serve(
      withDeadlines({
        providers: [
          oauth2({
            id: 'half',
            clientId: 'c',
            clientSecret: 's',
            authorizationUrl: `${half.url}/authorize`,
            tokenUrl: `${half.url}/token`,
          }),
        ],
      }),
    )
    try {
      const browser = new Browser(app)
      const { state } = await startSignIn(browser, 'half')
      const back = await browser.returnTo(`${app.base}/callback/half?state=${encodeURIComponent(state)}`)
      expect(back.headers.get('location')).toBe(`${app.base}/error?error=OAuthCallback`)
      expect(half.tokenRequests()).toBe(0)
      expect(app.logs).toContainEqual(
        expect.objectContaining({ event: 'callback.error', message: expect.stringContaining('no code') }),
      )
    } finally {
      await app.close()
      await half.close()
    }
  })

  it('a flow without a PKCE verifier is refused by a provider that requires PKCE, before any token request', async () => {
    const half = await halfProvider()
    const endpoints = {
      clientId: 'c',
      clientSecret: 's',
      authorizationUrl: `${half.url}/authorize`,
      tokenUrl: `${half.url}/token`,
    }
    // The same secret and provider id, once without PKCE (the flow cookie then holds no verifier) and once with it.
    const lax = await serve(
      withDeadlines({ providers: [oauth2({ id: 'half', checks: ['state'], ...endpoints })], logger: false }),
    )
    const strict = await serve(withDeadlines({ providers: [oauth2({ id: 'half', ...endpoints })] }))
    try {
      const browser = new Browser(lax)
      const { state } = await startSignIn(browser, 'half')
      const back = await browser.returnTo(`${strict.base}/callback/half?code=abc&state=${encodeURIComponent(state)}`)
      expect(back.headers.get('location')).toBe(`${strict.base}/error?error=OAuthCallback`)
      expect(half.tokenRequests()).toBe(0)
      expect(strict.logs).toContainEqual(
        expect.objectContaining({ message: expect.stringContaining('no PKCE verifier') }),
      )
    } finally {
      await lax.close()
      await strict.close()
      await half.close()
    }
  })
})

describe('a refused body is not drained for ever', () => {
  it.each([
    ['too large', 'POST /api/auth/_log', 'application/x-www-form-urlencoded', 413],
    ['of another type', 'POST /api/auth/signout', 'text/plain', 415],
    ['for no route', 'POST /api/auth/nope', 'application/x-www-form-urlencoded', 404],
    ['for a route without POST', 'POST /api/auth/csrf', 'application/x-www-form-urlencoded', 405],
  ])('a body %s: the answer comes at once and the connection closes', async (_label, line, type, status) => {
    const app = await serve(withDeadlines({ bodyTimeout: 60_000 }))
    try {
      const { port } = app
      const answer = await rawExchange(
        port,
        `${line} HTTP/1.1\r\nHost: localhost:${port}\r\nContent-Type: ${type}\r\nContent-Length: 100000\r\n\r\nlevel=warn&`,
      )
      expect(answer).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `))
      expect(answer).toMatch(/\r\nconnection: close\r\n/i)
    } finally {
      await app.close()
    }
  })
})

describe('request bodies have a deadline (bodyTimeout)', () => {
  it('a sender that stops half way gets 408 and the connection closes', async () => {
    const app = await serve(withDeadlines({}))
    try {
      const { port } = app
      const answer = await rawExchange(
        port,
        `POST /api/auth/signout HTTP/1.1\r\nHost: localhost:${port}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\ncsrfToken=`,
      )
      expect(answer).toMatch(/^HTTP\/1\.1 408 /)
      expect(answer).toMatch(/\r\nconnection: close\r\n/i)
    } finally {
      await app.close()
    }
  })
})
