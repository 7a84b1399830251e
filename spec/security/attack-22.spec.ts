import { randomBytes } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Express } from 'express'
import { AuthError, oauth2, type AuthRouter } from '../../lib'
import { serve, type Served } from '../support/app'
import { Browser } from '../support/browser'

// Attack 22 (provider tokens): the provider's token endpoint is not fully trusted. Its refresh
// answer may carry fields of any size (within the 1 MB answer cap): a refresh token, an ID token
// (kept unverified for a plain OAuth 2 provider), a token type or a scope of hundreds of kilobytes.
// With cookie sessions the successor must still fit in the session cookie; a refresh answer that
// cannot be kept is a provider failure (ServiceUnavailable, the old tokens kept), never a
// ConfigurationError thrown per request ("keep less in its data") with the rotated refresh token lost.
jest.setTimeout(60_000)

const random = () => randomBytes(18).toString('base64url')
let refreshAnswer: () => Record<string, unknown> = () => ({})
let refreshes = 0
const handedOut: string[] = []
let provider: Server
let origin = ''
let served: Served

beforeAll(async () => {
  provider = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x')
    if (url.pathname === '/authorize') {
      const back = new URL(url.searchParams.get('redirect_uri')!)
      back.searchParams.set('code', random())
      back.searchParams.set('state', url.searchParams.get('state')!)
      res.writeHead(302, { Location: back.href })
      return void res.end()
    }
    let body = ''
    req.on('data', (chunk) => (body += String(chunk)))
    req.on('end', () => {
      const refresh = new URLSearchParams(body).get('grant_type') === 'refresh_token'
      if (refresh) refreshes++
      const answer = refresh
        ? refreshAnswer()
        : { access_token: `at-${random()}`, refresh_token: `rt-${random()}`, token_type: 'Bearer', expires_in: 10 }
      for (const value of Object.values(answer)) if (typeof value === 'string') handedOut.push(value)
      res.writeHead(200, { 'Content-Type': 'application/json' })
      res.end(JSON.stringify(answer))
    })
  })
  await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve))
  origin = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`
  const holder: { router?: AuthRouter } = {}
  served = await serve(
    {
      providerTimeout: 2000,
      providers: [
        oauth2({
          id: 'plain',
          clientId: 'client',
          clientSecret: `secret-${random()}`,
          authorizationUrl: `${origin}/authorize`,
          tokenUrl: `${origin}/token`,
          profile: () => ({ id: 'alice', name: 'Alice' }),
          tokens: true,
        }),
      ],
    },
    {
      setup: (app: Express) =>
        app.get('/token', (req, res) => {
          holder.router!.getAccessToken(req, 'plain').then(
            (token) => res.json(token),
            (error: unknown) =>
              res.status(500).json({ error: error instanceof AuthError ? error.code : (error as Error).name }),
          )
        }),
    },
  )
  holder.router = served.router
})

afterAll(async () => {
  await served?.close()
  provider?.closeAllConnections()
  await new Promise<void>((resolve) => (provider ? provider.close(() => resolve()) : resolve()))
})

const token = async (browser: Browser) => {
  const res = await browser.jar.fetch(`${served.origin}/token`)
  return (await res.json()) as { accessToken?: string; error?: string }
}

const big = 'x'.repeat(300_000)

it.each([
  ['a huge refresh token', () => ({ access_token: `at-${random()}`, refresh_token: `rt-${big}`, expires_in: 60 })],
  ['a huge ID token (plain OAuth 2: not verified)', () => ({ access_token: `at-${random()}`, id_token: big })],
  ['a huge scope', () => ({ access_token: `at-${random()}`, scope: big, expires_in: 60 })],
  ['a huge token type', () => ({ access_token: `at-${random()}`, token_type: big, expires_in: 60 })],
  ['an access token too large for the cookie', () => ({ access_token: `at-${'y'.repeat(10_000)}`, expires_in: 60 })],
])(
  'cookie sessions: a refresh answering %s is a provider failure, the old tokens stay usable',
  async (_what, answer) => {
    const browser = new Browser(served)
    expect((await browser.signIn('plain')).headers.get('location')).toBe(`${served.origin}/welcome`)
    refreshAnswer = answer
    expect(await token(browser)).toEqual({ error: 'ServiceUnavailable' })
    // The provider back to normal: the tokens kept are still the ones to refresh.
    const fresh = `at-${random()}`
    refreshAnswer = () => ({ access_token: fresh, refresh_token: `rt-${random()}`, expires_in: 600 })
    expect(await token(browser)).toMatchObject({ accessToken: fresh })
    const session = JSON.stringify(await browser.session())
    for (const secret of handedOut) expect(session).not.toContain(secret)
  },
)

it.each([
  ['an access token that is an object', { access_token: { a: 1 }, expires_in: 60 }],
  ['expires_in NaN', { access_token: 'at-nan', expires_in: 'NaN' }],
  ['expires_in negative', { access_token: 'at-neg', expires_in: -5 }],
  ['expires_in huge', { access_token: 'at-huge-exp', expires_in: 1e308 }],
  ['scope as an array, token_type as an object', { access_token: 'at-arr', scope: ['a'], token_type: { x: 1 } }],
])('a refresh answering %s does not crash nor put a token in the session', async (_what, body) => {
  const browser = new Browser(served)
  expect((await browser.signIn('plain')).headers.get('location')).toBe(`${served.origin}/welcome`)
  refreshAnswer = () => body
  const answer = await token(browser)
  if (typeof body.access_token === 'string') expect(answer).toMatchObject({ accessToken: body.access_token })
  else expect(answer).toEqual({ error: 'ServiceUnavailable' })
  expect((await fetch(`${served.origin}/api/auth/providers`)).status).toBe(200)
  const session = JSON.stringify(await browser.session())
  for (const secret of handedOut) expect(session).not.toContain(secret)
  expect(refreshes).toBeGreaterThan(0)
})
