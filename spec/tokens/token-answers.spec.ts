import type { Express } from 'express'
import { AuthError, email, oauth2, type AuthRouter } from '../../lib'
import { serve, type Served } from '../support/app'
import { Browser } from '../support/browser'
import { startHostileTokenEndpoint, type HostileTokenEndpoint } from '../support/hostile-token-endpoint'

// getAccessToken with cookie sessions (no Redis) against a real token endpoint that answers the
// awkward ways providers do: GitHub Apps' empty `scope=` keeps the tokens usable; refreshed tokens
// that live no longer than minValidity are used until they expire (one grant, not one per call),
// with one warning naming the provider and both lifetimes; a refresh the provider got but answered
// after providerTimeout is not sent again at once; a call after the response's headers went out
// refreshes nothing and says why; no event or callback of the app receives anything of a token;
// and a provider id that cannot have tokens is a TypeError naming the fix, not `null`.
jest.setTimeout(60_000)

let endpoint: HostileTokenEndpoint
let served: Served
const seen: { name: string; record: unknown }[] = []
const late: { error?: string } = {}

beforeAll(async () => {
  endpoint = await startHostileTokenEndpoint()
  const holder: { router?: AuthRouter } = {}
  const answer = (res: Parameters<Parameters<Express['get']>[1]>[1]) => [
    (token: unknown) => res.json(token),
    (error: unknown) =>
      res.status(error instanceof AuthError ? error.status : 500).json({
        error: error instanceof AuthError ? error.code : (error as Error).name,
        message: (error as Error).message,
      }),
  ]
  served = await serve(
    {
      providerTimeout: 1000,
      providers: [
        oauth2({
          id: 'plain',
          clientId: endpoint.clientId,
          clientSecret: endpoint.clientSecret,
          authorizationUrl: `${endpoint.origin}/authorize`,
          tokenUrl: `${endpoint.origin}/token`,
          profile: () => ({ id: 'alice', name: 'Alice' }),
          tokens: true,
        }),
        oauth2({
          id: 'keepsnone',
          clientId: endpoint.clientId,
          clientSecret: endpoint.clientSecret,
          authorizationUrl: `${endpoint.origin}/authorize`,
          tokenUrl: `${endpoint.origin}/token`,
          profile: () => ({ id: 'alice', name: 'Alice' }),
        }),
        email({ from: 'auth@example.com', sendVerificationRequest: () => undefined }),
      ],
      events: {
        signIn: ({ record }) => void seen.push({ name: 'events.signIn', record }),
        session: ({ record }) => void seen.push({ name: 'events.session', record }),
        signOut: ({ record }) => void seen.push({ name: 'events.signOut', record }),
      },
      callbacks: {
        update: ({ record }) => {
          seen.push({ name: 'callbacks.update', record })
          return undefined
        },
      },
    },
    {
      setup: (app: Express) => {
        app.get('/token/:id', (req, res) => {
          const [ok, failed] = answer(res)
          void holder.router!.getAccessToken(req, req.params.id).then(ok, failed)
        })
        // Answers first, asks afterwards: what an app that forgot an `await` does.
        app.get('/late-token', (req, res) => {
          res.json({ answered: true })
          holder.router!.getAccessToken(req, 'plain').then(
            () => (late.error = 'none'),
            (error: unknown) => (late.error = (error as Error).message),
          )
        })
      },
    },
  )
  holder.router = served.router
})

afterAll(async () => {
  await served?.close()
  await endpoint?.stop()
})

afterEach(() => {
  endpoint.refresh = 'ok'
  endpoint.github = false
  endpoint.refreshedLifetime = 10
})

const token = async (browser: Browser, id = 'plain') => {
  const res = await browser.jar.fetch(`${served.origin}/token/${id}`)
  return {
    status: res.status,
    body: (await res.json()) as {
      accessToken?: string
      tokenType?: string
      scope?: string | null
      error?: string
      message?: string
    },
  }
}

const signedIn = async () => {
  const browser = new Browser(served)
  expect((await browser.signIn('plain')).headers.get('location')).toBe(`${served.origin}/welcome`)
  return browser
}

it("GitHub Apps' `scope=&token_type=bearer`: the refreshed tokens stay usable, the empty scope absent", async () => {
  endpoint.github = true
  endpoint.refreshedLifetime = 28_800
  const browser = await signedIn()
  const first = await token(browser)
  expect(first).toEqual({
    status: 200,
    body: { accessToken: endpoint.secrets.at(-2), expiresAt: expect.any(Number), tokenType: 'bearer', scope: null },
  })
  const again = await token(browser)
  expect(again).toEqual(first)
  expect(await browser.session()).not.toHaveProperty('error')
})

it('refreshed tokens that live no longer than minValidity: one grant for five calls, and one warning', async () => {
  endpoint.refreshedLifetime = 30
  const browser = await signedIn()
  const refreshes = endpoint.refreshes
  const answers = []
  for (let call = 0; call < 5; call++) answers.push(await token(browser))
  expect(new Set(answers.map((a) => a.body.accessToken)).size).toBe(1)
  expect(endpoint.refreshes - refreshes).toBe(1)
  const second = await signedIn()
  for (let call = 0; call < 3; call++) await token(second)
  expect(endpoint.refreshes - refreshes).toBe(2)
  const warnings = served.logs.filter((entry) => /minValidity/.test(entry.message))
  expect(warnings).toEqual([
    expect.objectContaining({ level: 'warn', event: 'tokens.warning', message: expect.stringMatching(/plain/) }),
  ])
  expect(warnings[0]!.message).toMatch(/\b30 s\b.*\(60 s\)/)
})

it('a refresh answered after providerTimeout is not sent again at once: the refresh token may be spent', async () => {
  endpoint.refresh = 'late'
  endpoint.lateMs = 1500
  const browser = await signedIn()
  const refreshes = endpoint.refreshes
  const first = await token(browser)
  expect(first).toMatchObject({ status: 503, body: { error: 'ServiceUnavailable' } })
  expect(first.body.message).toMatch(/no answer/)
  await new Promise((resolve) => setTimeout(resolve, 2500))
  const second = await token(browser)
  expect(second).toMatchObject({ status: 503, body: { error: 'ServiceUnavailable' } })
  expect(endpoint.refreshes - refreshes).toBe(1)
})

it('a refresh never sent (the connection refused) is not held: the next call refreshes', async () => {
  const browser = await signedIn()
  const refreshes = endpoint.refreshes
  await endpoint.down()
  try {
    const refused = await token(browser)
    expect(refused).toMatchObject({ status: 503, body: { error: 'ServiceUnavailable' } })
    expect(refused.body.message).not.toMatch(/no answer/)
  } finally {
    await endpoint.up()
  }
  expect((await token(browser)).status).toBe(200)
  expect(endpoint.refreshes).toBe(refreshes + 1)
})

it('a getAccessToken after the response was sent refreshes nothing and says why', async () => {
  const browser = await signedIn()
  const refreshes = endpoint.refreshes
  late.error = undefined
  expect((await browser.jar.fetch(`${served.origin}/late-token`)).status).toBe(200)
  for (let wait = 0; wait < 50 && late.error === undefined; wait++) await new Promise((r) => setTimeout(r, 20))
  expect(late.error).toMatch(/headers were sent/)
  expect(endpoint.refreshes).toBe(refreshes)
  // Within the response, the same session refreshes as usual.
  expect((await token(browser)).status).toBe(200)
  expect(endpoint.refreshes).toBe(refreshes + 1)
})

it('events and callbacks.update get the session record without its tokens', async () => {
  seen.length = 0
  const browser = await signedIn()
  await browser.session()
  const update = await browser.jar.fetch(`${served.base}/session`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ csrfToken: await browser.csrfToken(), data: { theme: 'dark' } }),
  })
  expect(update.status).toBe(200)
  await browser.signOut()
  expect(seen.map((entry) => entry.name)).toEqual(
    expect.arrayContaining(['events.signIn', 'events.session', 'callbacks.update', 'events.signOut']),
  )
  for (const { record } of seen) {
    expect(record).toMatchObject({ userId: 'plain:alice', provider: 'plain' })
    expect(record).not.toHaveProperty('tokens')
  }
})

it.each([
  ['keepsnone', /provider "keepsnone" does not keep tokens: add `tokens: true`/],
  ['email', /provider "email" is not an OAuth provider/],
  ['nope', /no provider "nope".*"plain"/],
])('getAccessToken(req, %p) is a TypeError naming the fix', async (id, message) => {
  const browser = await signedIn()
  expect(await token(browser, id)).toEqual({
    status: 500,
    body: { error: 'TypeError', message: expect.stringMatching(message) },
  })
  // Signed out, the configuration is as wrong.
  expect(await token(new Browser(served), id)).toMatchObject({ status: 500, body: { error: 'TypeError' } })
  // Nobody signed in, with a provider that keeps tokens: null, as before.
  expect(await token(new Browser(served))).toEqual({ status: 200, body: null })
})
